import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { apiKeyEntity } from '../../../functions/adapters/table/entities/api-key.js';
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
