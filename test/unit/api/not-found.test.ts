import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { handler } from '../../../functions/api/not-found.js';
import { apiEvent, jsonBody, type ErrorBody } from '../../helpers/unit-fixtures.js';

const event = (method: string, path: string): APIGatewayProxyEventV2 => apiEvent({ method, path, routeKey: '$default', auth: null, requestId: 'req-404' });

describe('api/not-found', () => {
  it('answers an unknown route with the 404 envelope and no allow header', async () => {
    const response = await handler(event('GET', '/v1/nothing-here'));
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-request-id']).toBe('req-404');
    expect(response.headers).not.toHaveProperty('allow');
    const { error } = jsonBody<ErrorBody>(response);
    expect(error).toMatchObject({ type: 'not_found_error', code: 'not_found', request_id: 'req-404' });
    expect(error.message).toContain('GET /v1/nothing-here');
  });

  it('answers a known path with another method with 404 and an allow header listing the methods', async () => {
    const response = await handler(event('DELETE', '/v1/scanners/scn_1'));
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBe('GET, PATCH');
    const { error } = jsonBody<ErrorBody>(response);
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('GET, PATCH');
  });

  it('lists both methods of the scanners collection', async () => {
    const response = await handler(event('PUT', '/v1/scanners'));
    expect(response.headers.allow?.split(', ').sort()).toEqual(['GET', 'POST']);
  });

  it('treats a trailing slash as another (unknown) path', async () => {
    const response = await handler(event('GET', '/v1/scanners/'));
    expect(response.statusCode).toBe(404);
    expect(response.headers).not.toHaveProperty('allow');
  });
});
