/** Retries of transient failures (SPEC Errors: bounded exponential backoff) and the automatic Idempotency-Key. */
import { describe, expect, it } from 'vitest';
import { backoffMs, createMediaScannerClient, MediaScannerError, retryDefaults, unwrap } from '../../../packages/client/src/index.js';
import { envelope, fakeClock, fakeFetch, hex, json } from './fakes.js';

const scanner = { object: 'scanner', scanner_id: `scn_${hex(1)}` };
const body = { name: 'Cuts', instructions: 'Find cuts', type: 'monitor' } as const;

describe('the client', () => {
  it('retries 503 and 429 with growing, bounded waits, under one automatic Idempotency-Key', async () => {
    const { fetch, seen } = fakeFetch({
      'POST /v1/scanners': (_request, count) =>
        count === 1 ? envelope(503, 'queue_unavailable') : count === 2 ? envelope(429, 'rate_limited') : json(201, scanner),
    });
    const clock = fakeClock();
    const client = createMediaScannerClient({ apiKey: 'sk_test_x', baseUrl: 'http://api.test', fetch, clock });
    await expect(unwrap(client.api.POST('/v1/scanners', { body }))).resolves.toEqual(scanner);
    expect(seen).toHaveLength(3);
    const keys = seen.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(seen.every((request) => request.headers.get('authorization') === 'Bearer sk_test_x')).toBe(true);
    expect(clock.sleeps).toEqual([375, 750]);
  });

  it('keeps an Idempotency-Key the caller set, and sends none on reads', async () => {
    const { fetch, seen } = fakeFetch({
      'POST /v1/scanners': () => json(201, scanner),
      'GET /v1/scanners': () => json(200, { object: 'list', data: [], next_cursor: null }),
    });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    await unwrap(client.api.POST('/v1/scanners', { body, headers: { 'Idempotency-Key': 'mine' } }));
    await unwrap(client.api.GET('/v1/scanners'));
    expect(seen.map((request) => request.headers.get('idempotency-key'))).toEqual(['mine', null]);
  });

  it('does not retry what will fail again, and throws the envelope as MediaScannerError', async () => {
    const { fetch, seen } = fakeFetch({ 'POST /v1/scanners': () => envelope(400, 'validation_failed', 'name: Required') });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    const error = await unwrap(client.api.POST('/v1/scanners', { body })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaScannerError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed', message: 'name: Required', requestId: 'req-err' });
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxAttempts with the last answer', async () => {
    const { fetch, seen } = fakeFetch({ 'GET /v1/account': () => envelope(503, 'queue_unavailable') });
    const clock = fakeClock(0.99);
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock, retry: { maxAttempts: 3 } });
    await expect(unwrap(client.api.GET('/v1/account'))).rejects.toMatchObject({ status: 503, code: 'queue_unavailable' });
    expect(seen).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('repeats a request after a network failure only when repeating it is safe', async () => {
    const flaky = (ok: Response) => (_request: unknown, count: number) => (count === 1 ? Promise.reject(new TypeError('fetch failed')) : ok);
    const { fetch, seen } = fakeFetch({
      'GET /v1/account': flaky(json(200, { object: 'account' })),
      [`POST /v1/scanners/scn_${hex(1)}/runs`]: flaky(json(202, { object: 'run' })),
      'POST /v1/uploads': flaky(json(201, { object: 'upload' })),
      [`POST /v1/analyses/ana_${hex(2)}/cancel`]: flaky(json(202, { object: 'analysis' })),
    });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    await expect(unwrap(client.api.GET('/v1/account'))).resolves.toEqual({ object: 'account' });
    await expect(
      unwrap(client.api.POST('/v1/scanners/{scanner_id}/runs', { params: { path: { scanner_id: `scn_${hex(1)}` } }, body: { upload_id: 'upl_1' } })),
    ).resolves.toEqual({
      object: 'run',
    });
    // Not idempotent on the server: a second ticket, or a 409 for a cancel that worked. The caller reconciles.
    await expect(client.api.POST('/v1/uploads', { body: { filename: 'a.mp4', content_type: 'video/mp4', size_bytes: 1 } })).rejects.toThrow('fetch failed');
    await expect(client.api.POST('/v1/analyses/{analysis_id}/cancel', { params: { path: { analysis_id: `ana_${hex(2)}` } } })).rejects.toThrow('fetch failed');
    expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/account',
      'GET /v1/account',
      `POST /v1/scanners/scn_${hex(1)}/runs`,
      `POST /v1/scanners/scn_${hex(1)}/runs`,
      'POST /v1/uploads',
      `POST /v1/analyses/ana_${hex(2)}/cancel`,
    ]);
  });
});

describe('backoffMs', () => {
  it('doubles from the base with full jitter, honours Retry-After and never passes the cap', () => {
    const options = { ...retryDefaults, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, options, 1))).toEqual([100, 200, 400, 800, 1000]);
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, options, 0))).toEqual([50, 100, 200]);
    expect(backoffMs(1, options, 0, '0')).toBe(50);
    expect(backoffMs(1, options, 0, '0.5')).toBe(50);
    expect(backoffMs(1, { ...options, maxDelayMs: 20_000 }, 0, '3')).toBe(3000);
    expect(backoffMs(1, options, 0, '3600')).toBe(1000);
  });
});
