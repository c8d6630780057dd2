/**
 * Authentication (SPEC Authentication, DESIGN §4): a missing, malformed, unknown or revoked key
 * is a 401 `unauthorized` in the error envelope, on every route, and the answers do not tell
 * the cases apart.
 */
import { beforeAll, describe, expect, inject, test } from 'vitest';
import {
  adminOutput,
  api,
  clientFor,
  createAccount,
  expectError,
  runAdmin,
  validScanner,
  type Account,
  type ErrorBody,
  type NewAccount,
} from '../helpers/api.js';

const baseUrl = inject('baseUrl');
const VALID_SHAPE_UNKNOWN_KEY = `sk_live_${'A'.repeat(40)}`;

let revokedAccount: NewAccount;
let minted: NewAccount;
let revokedKeyWorkedBefore: number;

beforeAll(async () => {
  [revokedAccount, minted] = await Promise.all([createAccount({ plan: 'hobby', credits: 5 }), createAccount({ plan: 'beginner', credits: 1 })]);
  revokedKeyWorkedBefore = (await clientFor(revokedAccount.apiKey).get('/v1/account')).status;
  adminOutput(await runAdmin(['accounts', 'revoke-key', '--api-key', revokedAccount.apiKey]));
});

/** One request on each route, with the given Authorization header (or none). */
async function everyRoute(authorization: string | undefined) {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const client = api(baseUrl);
  const scannerPath = `/v1/scanners/scn_${'0'.repeat(32)}`;
  return Promise.all([
    client.send('GET', '/v1/account', { headers }),
    client.send('GET', '/v1/scanners', { headers }),
    client.send('POST', '/v1/scanners', { json: validScanner('monitor'), headers }),
    client.send('GET', scannerPath, { headers }),
    client.send('PATCH', scannerPath, { json: { name: 'x' }, headers }),
    client.send('GET', `${scannerPath}/versions`, { headers }),
  ]);
}

describe('401 unauthorized', () => {
  const cases: [string, () => string | undefined][] = [
    ['missing Authorization header', () => undefined],
    ['empty Authorization header', () => ''],
    ['the key without "Bearer"', () => inject('apiKey')],
    ['Basic scheme', () => `Basic ${Buffer.from(`${inject('apiKey')}:`).toString('base64')}`],
    ['"Bearer" and nothing else', () => 'Bearer'],
    ['"Bearer " and a blank', () => 'Bearer  '],
    ['two keys', () => `Bearer ${inject('apiKey')} ${inject('apiKey')}`],
    ['a key of the wrong format', () => 'Bearer not-a-key'],
    ['a key too short', () => `Bearer sk_live_${'a'.repeat(39)}`],
    ['a key too long', () => `Bearer ${inject('apiKey')}x`],
    ['a key with an unknown mode', () => `Bearer sk_prod_${'a'.repeat(40)}`],
    ['a key with non-base62 characters', () => `Bearer sk_live_${'-'.repeat(40)}`],
    ['an unknown key of the right shape', () => `Bearer ${VALID_SHAPE_UNKNOWN_KEY}`],
    ['an unknown sk_test_ key', () => `Bearer sk_test_${'z'.repeat(40)}`],
    ['a revoked key', () => `Bearer ${revokedAccount.apiKey}`],
  ];

  test.for(cases)('%s → 401 unauthorized on every route', async ([, header]) => {
    const responses = await everyRoute(header());
    for (const response of responses) {
      const error = expectError(response, 401, 'unauthorized');
      expect(error.type).toBe('authentication_error');
      expect(error.param).toBeUndefined();
    }
  });

  test('the revoked key worked before it was revoked', () => {
    expect(revokedKeyWorkedBefore).toBe(200);
  });

  test('missing, malformed, unknown and revoked keys get the same message (no oracle)', async () => {
    const headers = [undefined, 'Bearer nope', `Bearer ${VALID_SHAPE_UNKNOWN_KEY}`, `Bearer ${revokedAccount.apiKey}`];
    const messages = await Promise.all(
      headers.map(async (authorization) => {
        const response = await api(baseUrl).send<ErrorBody>('GET', '/v1/account', authorization ? { headers: { authorization } } : {});
        expectError(response, 401, 'unauthorized');
        return response.body.error.message;
      }),
    );
    expect(new Set(messages).size).toBe(1);
  });

  test('every 401 carries its own request id', async () => {
    const responses = await Promise.all([1, 2, 3].map(() => api(baseUrl).get<ErrorBody>('/v1/account')));
    const ids = responses.map((r) => r.body.error.request_id);
    expect(new Set(ids).size).toBe(3);
    for (const response of responses) expect(response.headers.get('x-request-id')).toBe(response.body.error.request_id);
  });

  test('a 401 never echoes the key that was sent', async () => {
    const response = await api(baseUrl, revokedAccount.apiKey).get('/v1/account');
    expectError(response, 401, 'unauthorized');
    expect(response.text).not.toContain(revokedAccount.apiKey);
  });

  test('a revoked key cannot create anything', async () => {
    const response = await api(baseUrl, revokedAccount.apiKey).post('/v1/scanners', validScanner('monitor'), { 'idempotency-key': 'revoked-1' });
    expectError(response, 401, 'unauthorized');
  });
});

describe('valid keys', () => {
  test('the default key reaches the default account; a minted key reaches its own', async () => {
    const [mine, theirs] = await Promise.all([clientFor(inject('apiKey')).get<Account>('/v1/account'), clientFor(minted.apiKey).get<Account>('/v1/account')]);
    expect(mine.status).toBe(200);
    expect(mine.body.account_id).toBe(inject('accountId'));
    expect(theirs.status).toBe(200);
    expect(theirs.body.account_id).toBe(minted.accountId);
    expect(mine.headers.get('content-type')).toMatch(/^application\/json/);
    expect(mine.headers.get('x-request-id')).toBeTruthy();
  });

  test('revoking one key leaves other accounts alone', async () => {
    expect((await clientFor(minted.apiKey).get('/v1/account')).status).toBe(200);
  });

  test('revoking an unknown key fails with exit code 1', async () => {
    const result = await runAdmin(['accounts', 'revoke-key', '--api-key', VALID_SHAPE_UNKNOWN_KEY]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/No such API key/i);
  });
});
