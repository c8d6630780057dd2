import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import type { AuthorizerContext } from '../../../functions/http/types.js';
import { ACCOUNT_ID, authorizerEvent, stubServiceEnv } from '../../helpers/unit-fixtures.js';

type Authorizer = (event: APIGatewayRequestAuthorizerEventV2) => Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>>;

const ddb = mockClient(DynamoDBDocumentClient);
let authorize: Authorizer;

const GOOD_KEY = `sk_live_${'Ab1'.repeat(13)}Z`;
const REVOKED_KEY = `sk_live_${'Rv9'.repeat(13)}Q`;
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');
const keyItem = (key: string, revoked: boolean) => ({
  PK: `APIKEY#${hashOf(key)}`,
  SK: 'APIKEY',
  entity: 'api_key',
  keyHash: hashOf(key),
  accountId: ACCOUNT_ID,
  revoked,
  createdAt: '2026-01-01T00:00:00.000Z',
});

beforeAll(async () => {
  // The cache as deployed (whatever another project's host set in this process's environment).
  stubServiceEnv({ API_KEY_CACHE_SECONDS: '60' });
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
});

describe('authorizer', () => {
  it('lets a good key through with the account id and no error', async () => {
    const result = await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(result).toEqual({ isAuthorized: true, context: { accountId: ACCOUNT_ID } });
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

  it('answers a key it looked up within the last minute from its cache, without a table read', async () => {
    await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    ddb.reset();
    ddb.on(GetCommand).rejects(new Error('no read expected'));
    const result = await authorize(authorizerEvent({ authorization: `Bearer ${GOOD_KEY}` }));
    expect(result.context).toEqual({ accountId: ACCOUNT_ID });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});
