import { describe, expect, it } from 'vitest';
import { matchRoute, routeFor, routes } from '../../../functions/routes.js';
import { parseConfig } from '../../../functions/config.js';
import { serviceEnv } from '../../helpers/unit-fixtures.js';

describe('upload routes in the route table', () => {
  it('declares what infra must grant, and nothing more', () => {
    expect(routeFor('api/uploads/create')).toEqual({
      method: 'POST',
      path: '/v1/uploads',
      handler: 'api/uploads/create',
      idempotency: 'ignored',
      table: 'readWrite',
      bucket: 'readWrite',
      uploads: true,
    });
    expect(routeFor('api/uploads/complete')).toEqual({
      method: 'POST',
      path: '/v1/uploads/{upload_id}/complete',
      handler: 'api/uploads/complete',
      idempotency: 'ignored',
      table: 'readWrite',
      bucket: 'readWrite',
      ffprobe: true,
      uploads: true,
    });
    for (const handler of ['api/uploads/get', 'api/uploads/list'] as const) {
      const route: Record<string, unknown> = routeFor(handler);
      expect(route).toMatchObject({ method: 'GET', idempotency: 'none', table: 'read' });
      expect(route.bucket).toBeUndefined();
    }
    expect(routes.filter((r) => r.path.startsWith('/v1/uploads'))).toHaveLength(4);
  });

  it('dispatches the upload paths', () => {
    expect(matchRoute('POST', '/v1/uploads/upl_1/complete')).toMatchObject({ kind: 'route', pathParameters: { upload_id: 'upl_1' } });
    expect(matchRoute('GET', '/v1/uploads/upl_1')).toMatchObject({ kind: 'route', route: { handler: 'api/uploads/get' } });
    expect(matchRoute('DELETE', '/v1/uploads/upl_1')).toMatchObject({ kind: 'method_not_allowed', allowed: ['GET'] });
  });
});

describe('upload settings', () => {
  it('default to the S3 limits the docs describe', () => {
    const config = parseConfig({ ...serviceEnv });
    expect(config).toMatchObject({ MULTIPART_THRESHOLD_BYTES: 5 * 1024 ** 3, MULTIPART_PART_SIZE_BYTES: 512 * 1024 ** 2, PROBE_TIMEOUT_MS: 20_000 });
    expect(config.FFPROBE_PATH).toBeUndefined();
    expect(config.EVENT_BUS_NAME).toBeUndefined();
  });

  it('refuse part sizes and thresholds S3 would not accept', () => {
    expect(() => parseConfig({ ...serviceEnv, MULTIPART_PART_SIZE_BYTES: String(5 * 1024 ** 2 - 1) })).toThrow(/MULTIPART_PART_SIZE_BYTES/);
    expect(() => parseConfig({ ...serviceEnv, MULTIPART_THRESHOLD_BYTES: String(5 * 1024 ** 3 + 1) })).toThrow(/MULTIPART_THRESHOLD_BYTES/);
    expect(parseConfig({ ...serviceEnv, FFPROBE_PATH: '/opt/bin/ffprobe' }).FFPROBE_PATH).toBe('/opt/bin/ffprobe');
  });
});
