/**
 * Per-account request limits and revocation (DESIGN §11) over HTTP on the local host: a burst
 * from one account is answered 429 `rate_limited` with Retry-After while another account's
 * requests pass; every authenticated answer carries X-RateLimit-Limit/Remaining/Reset; a revoked
 * key is refused by the very next request.
 */
import { describe, expect, test } from 'vitest';
import { adminOutput, clientFor, createAccount, expectError, runAdmin, type ApiResponse } from '../helpers/api.js';
import { plans } from '../../functions/domain/accounts/plans.js';

/** A bucket small and slow enough that a burst empties it long before it refills. */
const small = { perSecond: 1, burst: 5 };

const rateHeaders = (response: ApiResponse<unknown>) => ({
  limit: Number(response.headers.get('x-ratelimit-limit')),
  remaining: Number(response.headers.get('x-ratelimit-remaining')),
  reset: Number(response.headers.get('x-ratelimit-reset')),
  retryAfter: response.headers.get('retry-after'),
});

describe('per-account request limits', () => {
  test('a burst from one account gets 429 rate_limited with Retry-After; another account passes meanwhile', async () => {
    const [noisy, quiet] = await Promise.all([createAccount({ requestRate: small }), createAccount({ requestRate: small })]);
    const noisyClient = clientFor(noisy.apiKey);
    const quietClient = clientFor(quiet.apiKey);

    // The quiet account's requests go out while the noisy account's burst is being answered.
    const started = Date.now();
    const [burst, quietAnswers] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => noisyClient.get('/v1/account'))),
      Promise.all(Array.from({ length: 3 }, () => quietClient.get('/v1/account'))),
    ]);
    const refilled = Math.floor(((Date.now() - started) / 1000) * small.perSecond);

    const passed = burst.filter((response) => response.status === 200);
    const limited = burst.filter((response) => response.status !== 200);
    // The bucket's tokens, plus at most what refilled while the burst was answered (a slow machine refills more).
    expect(passed.length).toBeGreaterThanOrEqual(small.burst);
    expect(passed.length).toBeLessThanOrEqual(small.burst + refilled);
    expect(limited.length).toBeGreaterThan(0);
    const nowSeconds = Date.now() / 1000;
    for (const response of limited) {
      const error = expectError(response, 429, 'rate_limited');
      expect(error.type).toBe('rate_limit_error');
      const headers = rateHeaders(response);
      expect(headers.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(headers.retryAfter)).toBeLessThanOrEqual(2);
      expect(headers).toMatchObject({ limit: small.burst, remaining: 0 });
      // Full again at most burst / rate seconds from now.
      expect(headers.reset).toBeGreaterThan(nowSeconds - 1);
      expect(headers.reset).toBeLessThanOrEqual(Math.ceil(nowSeconds + small.burst / small.perSecond) + 1);
    }

    for (const response of quietAnswers) {
      expect(response.status, response.text).toBe(200);
      // Counted against its own bucket, which the noisy account's burst left alone.
      expect(rateHeaders(response)).toMatchObject({ limit: small.burst, retryAfter: null });
    }

    // Retry-After is honest: waiting that long admits the next request.
    await new Promise((resolve) => setTimeout(resolve, Number(rateHeaders(limited.at(-1)!).retryAfter) * 1000));
    expect((await noisyClient.get('/v1/account')).status).toBe(200);
  });

  test('every authenticated answer carries the bucket: success, other errors, counting down', async () => {
    // One token a second: the second request, sent as soon as the first is answered, finds one fewer.
    const account = await createAccount({ requestRate: { perSecond: 1, burst: 10 } });
    const client = clientFor(account.apiKey);
    const first = await client.get('/v1/account');
    expect(first.status).toBe(200);
    const { limit, remaining, reset, retryAfter } = rateHeaders(first);
    expect(limit).toBe(10);
    expect(remaining).toBe(9);
    expect(retryAfter).toBeNull();
    const nowSeconds = Date.now() / 1000;
    expect(reset).toBeGreaterThan(nowSeconds - 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 1);

    const notFound = await client.get(`/v1/scanners/scn_${'0'.repeat(32)}`);
    expectError(notFound, 404, 'not_found');
    expect(rateHeaders(notFound)).toMatchObject({ limit: 10, remaining: 8, retryAfter: null });
  });

  test("an account without a contracted rate gets its plan's", async () => {
    const account = await createAccount({ plan: 'beginner', requestRate: 'plan' });
    const response = await clientFor(account.apiKey).get('/v1/account');
    expect(rateHeaders(response)).toMatchObject({ limit: plans.beginner.requestBurst, remaining: plans.beginner.requestBurst - 1 });
  });

  test('a request without a valid key carries no rate headers (there is no account to count against)', async () => {
    const response = await clientFor(`sk_live_${'Q'.repeat(40)}`).get('/v1/account');
    expectError(response, 401, 'unauthorized');
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test('the operator sets a contracted rate with the admin CLI; it applies to the next request', async () => {
    const account = await createAccount({ plan: 'hobby', requestRate: 'plan' });
    const client = clientFor(account.apiKey);
    expect(rateHeaders(await client.get('/v1/account')).limit).toBe(plans.hobby.requestBurst);
    adminOutput(await runAdmin(['accounts', 'request-rate', '--account', account.accountId, '--requests-per-second', '3', '--request-burst', '7']));
    expect(rateHeaders(await client.get('/v1/account')).limit).toBe(7);
  });
});

describe('revocation', () => {
  test('a revoked key is refused by the very next request', async () => {
    const account = await createAccount();
    const client = clientFor(account.apiKey);
    // Used just before: a host that cached keys would still hold it as valid.
    expect((await client.get('/v1/account')).status).toBe(200);
    adminOutput(await runAdmin(['accounts', 'revoke-key', '--api-key', account.apiKey]));
    expectError(await client.get('/v1/account'), 401, 'unauthorized');
  });
});
