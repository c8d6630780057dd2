/**
 * SPEC 503 uploads_unavailable: a deployment that cannot run production scanners (UPLOADS_ENABLED
 * =false) says so on every route that needs uploads, before reading anything, while the one-off
 * analysis routes carry no such rule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResponse } from '../../../functions/http/types.js';
import { routes } from '../../../functions/routes.js';
import { apiEvent, jsonBody, stubServiceEnv, unitContext, type ErrorBody } from '../../helpers/unit-fixtures.js';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResponse>;

beforeAll(() => stubServiceEnv({ UPLOADS_ENABLED: 'false' }));
afterAll(() => vi.unstubAllEnvs());

describe('uploads switched off for the deployment', () => {
  it('marks uploads, scanner runs and batches, and nothing of one-off analyses', () => {
    const needing = routes.filter((r) => 'uploads' in r && r.uploads).map((r) => `${r.method} ${r.path}`);
    expect(needing.sort()).toEqual(
      ['POST /v1/scanner-batches', 'POST /v1/scanners/{scanner_id}/runs', 'POST /v1/uploads', 'POST /v1/uploads/{upload_id}/complete'].sort(),
    );
  });

  it.each([
    ['api/uploads/create', () => import('../../../functions/api/uploads/create.js'), '/v1/uploads', {}],
    ['api/runs/create', () => import('../../../functions/api/runs/create.js'), '/v1/scanners/scn_1/runs', { scanner_id: 'scn_1' }],
  ] as const)('%s answers 503 uploads_unavailable', async (_name, load, path, pathParameters) => {
    const { handler } = (await load()) as { handler: Handler };
    const method = 'POST';
    const response = await handler(apiEvent({ method, path, pathParameters, body: '{}' }), unitContext());
    expect(response.statusCode).toBe(503);
    expect(jsonBody<ErrorBody>(response).error).toMatchObject({ code: 'uploads_unavailable', type: 'service_unavailable_error' });
  });
});
