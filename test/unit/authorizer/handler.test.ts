import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { apiKeyEntity } from '../../../functions/adapters/table/entities/api-key.js';
import { consoleSessionEntity } from '../../../functions/adapters/table/entities/console-session.js';
import type { AuthorizerContext } from '../../../functions/http/types.js';
import { ACCOUNT_ID, authorizerEvent, stubServiceEnv, testAccount } from '../../helpers/unit-fixtures.js';

type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>>;

const ddb = mockClient(DynamoDBDocumentClient);
let authorize: Authorizer;

const GOOD_KEY = `sk_live_${'Ab1'.repeat(13)}Z`;
const REVOKED_KEY = `sk_live_${'Rv9'.repeat(13)}Q`;
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');
const keyItem = (key: string, revoked: boolean) =>
  apiKeyEntity.item({
    keyHash: hashOf(key),
    accountId: ACCOUNT_ID,
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUsedAt: null,
    revokedAt: revoked ? '2026-01-02T00:00:00.000Z' : null,
  });

beforeAll(async () => {
  // The cache as deployed (whatever another project's host set in this process's environment).
  stubServiceEnv({ API_KEY_CACHE_SECONDS: '5' });
  authorize = (await import('../../../functions/authorizer/handler.js')).handler;
});
afterAll(() => {
  ddb.restore();
  vi.unstubAllEnvs();
});
beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: { PK: `APIKEY#${hashOf(GOOD_KEY)}`, SK: 'APIKEY' } }).resolves({ Item: keyItem(GOOD_KEY, false) });
  ddb.on(GetCommand, { Key: { PK: `APIKEY#${hashOf(REVOKED_KEY)}`, SK: 'APIKEY' } }).resolves({ Item: keyItem(REVOKED_KEY, true) });
  ddb.on(GetCommand, { Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT' } }).resolves({ Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', ...testAccount() } });
  busyBucket();
});

/** A bucket each request moves one interval on from now (creator: 20 per second, so 50 ms). */
const busyBucket = () =>
  ddb
    .on(UpdateCommand)
    .callsFake((input: { ExpressionAttributeValues: Record<string, number> }) =>
      Promise.resolve({ Attributes: { tat: input.ExpressionAttributeValues[':now']! + 50 } }),
    );

/** What a request of the creator plan is told when its bucket held all 100 tokens. */
const fullBucket = { rateLimit: 100, rateRemaining: 99, rateResetAt: expect.any(Number) as number };

describe('authorizer', () => {
  it('lets a good key through with the account id and no error', async () => {
    const result = await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(result).toEqual({ isAuthorized: true, context: { accountId: ACCOUNT_ID, ...fullBucket } });
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ PK: `APIKEY#${hashOf(GOOD_KEY)}`, SK: 'APIKEY' });
  });

  it.each([
    ['no headers at all', undefined],
    ['no Authorization header', {}],
    ['a malformed header', { authorization: `Token ${GOOD_KEY}` }],
    ['a malformed key', { authorization: 'Bearer sk_live_nope' }],
    ['an unknown key', { authorization: `Bearer sk_live_${'U'.repeat(40)}` }],
    ['a revoked key', { authorization: `Bearer ${REVOKED_KEY}` }],
  ])('still allows the call for %s, so the route can answer 401 in the envelope', async (_label, headers) => {
    const result = await authorize(authorizerEvent(headers));
    expect(result.isAuthorized).toBe(true);
    expect(result.context.accountId).toBeUndefined();
    expect(result.context.authError).toEqual(expect.any(String));
    expect(result.context.authError).not.toContain('sk_live_');
  });

  it('does not turn a table failure into an anonymous request', async () => {
    ddb.on(GetCommand).rejects(new Error('ServiceUnavailable'));
    const uncachedKey = `sk_live_${'Tf5'.repeat(13)}W`;
    await expect(authorize(authorizerEvent({ authorization: `Bearer ${uncachedKey}` }))).rejects.toThrow('ServiceUnavailable');
  });

  it('tells the route to refuse a request the bucket has no token for, and when to retry', async () => {
    const now = Date.now();
    // 100 tokens of 50 ms each: a time 5 s ahead (and one token's worth) means an empty bucket.
    ddb.on(UpdateCommand).rejects(
      Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), {
        Item: { tat: { N: String(now + 5_050) } },
      }),
    );
    const result = await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(result.context).toMatchObject({ accountId: ACCOUNT_ID, rateLimit: 100, rateRemaining: 0, retryAfter: 1 });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('answers a key it looked up within the last 5 s from its cache, without a table read', async () => {
    await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    ddb.reset();
    ddb.on(GetCommand).rejects(new Error('no read expected'));
    busyBucket();
    const result = await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(result.context).toMatchObject({ accountId: ACCOUNT_ID });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});

describe('authorizer on console routes (AWS: the session is read with a cache of at most 5 s)', () => {
  const sessionIdOf = (token: string) => createHash('sha256').update(token).digest('hex');
  const sessionPartition = (token: string) => `CONSOLESESSION#${sessionIdOf(token)}`;
  /** The table's items by partition (the cache is per process: each test names its own tokens and owners). */
  const items = new Map<string, Record<string, unknown>>();
  beforeEach(() => {
    items.clear();
    items.set(`ACCT#${ACCOUNT_ID}`, { PK: `ACCT#${ACCOUNT_ID}`, SK: 'ACCOUNT', ...testAccount() });
    ddb.on(GetCommand).callsFake((input: { Key: { PK: string } }) => Promise.resolve({ Item: items.get(input.Key.PK) }));
  });
  /** A session of `owner` the table holds for `token`, begun at generation 0 and good for `hoursLeft`. */
  const storeSession = (token: string, owner: string, hoursLeft = 12) =>
    items.set(
      sessionPartition(token),
      consoleSessionEntity.item({
        sessionId: sessionIdOf(token),
        accountId: ACCOUNT_ID,
        owner,
        generation: 0,
        createdAt: Date.now() - 1_000,
        expiresAt: Date.now() + hoursLeft * 3_600_000,
      }),
    );
  const storeStanding = (owner: string, standing: { generation: number; disabled?: boolean }) =>
    items.set(`CONSOLEOWNER#${owner}`, { PK: `CONSOLEOWNER#${owner}`, SK: 'CONSOLEOWNER', ...standing });
  const consoleRequest = (cookies: string[], headers?: Record<string, string>) => ({
    ...authorizerEvent(headers),
    routeKey: 'GET /console/api/v1/uploads',
    cookies,
  });
  const signedOut = { authError: 'Sign in to the console first.' };

  it("lets a session through as its account's, with its id and the account's request bucket", async () => {
    storeSession('token-good', 'owner-good');
    const result = await authorize(consoleRequest(['msc_csrf=x', 'msc_session=token-good']));
    expect(result.context).toEqual({ accountId: ACCOUNT_ID, sessionId: sessionIdOf('token-good'), ...fullBucket });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('reads only the session on a console route, and only the API key on an API route', async () => {
    storeSession('token-apart', 'owner-apart');
    expect((await authorize(consoleRequest([], { authorization: `Bearer ${GOOD_KEY}` }))).context).toEqual(signedOut);
    const apiRoute = { ...authorizerEvent(undefined), cookies: ['msc_session=token-apart'] };
    expect((await authorize(apiRoute)).context.accountId).toBeUndefined();
  });

  it.each([
    ['an unknown token', 'token-unknown', () => undefined],
    ['an expired session', 'token-expired', () => storeSession('token-expired', 'owner-expired', -1)],
    [
      'an owner moved or signed out everywhere since (generation 1)',
      'token-moved',
      () => {
        storeSession('token-moved', 'owner-moved');
        storeStanding('owner-moved', { generation: 1 });
      },
    ],
    [
      'a disabled owner',
      'token-disabled',
      () => {
        storeSession('token-disabled', 'owner-disabled');
        storeStanding('owner-disabled', { generation: 0, disabled: true });
      },
    ],
  ])('refuses %s, taking no request token', async (_case, token, arrange) => {
    arrange();
    expect((await authorize(consoleRequest([`msc_session=${token}`]))).context).toEqual(signedOut);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("takes the account's token: an empty bucket is the route's 429 with Retry-After", async () => {
    storeSession('token-busy', 'owner-busy');
    ddb.on(UpdateCommand).rejects(
      Object.assign(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }), {
        Item: { tat: { N: String(Date.now() + 5_050) } },
      }),
    );
    const result = await authorize(consoleRequest(['msc_session=token-busy']));
    expect(result.context).toMatchObject({ accountId: ACCOUNT_ID, rateRemaining: 0, retryAfter: 1 });
  });

  it("ends a signed-out session, and a disabled owner's, within 5 s of the change", async () => {
    vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    try {
      storeSession('token-signed-out', 'owner-staying');
      storeSession('token-of-disabled', 'owner-leaving');
      const accountOf = async (token: string) => (await authorize(consoleRequest([`msc_session=${token}`]))).context.accountId;
      for (const token of ['token-signed-out', 'token-of-disabled']) expect(await accountOf(token)).toBe(ACCOUNT_ID);
      // Sign-out deleted the first session's item; an operator disabled the second one's owner.
      items.delete(sessionPartition('token-signed-out'));
      storeStanding('owner-leaving', { generation: 1, disabled: true });
      vi.advanceTimersByTime(4_000);
      for (const token of ['token-signed-out', 'token-of-disabled']) expect(await accountOf(token), `${token}, still cached`).toBe(ACCOUNT_ID);
      vi.advanceTimersByTime(1_001);
      for (const token of ['token-signed-out', 'token-of-disabled']) expect(await accountOf(token), `${token}, 5 s on`).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
