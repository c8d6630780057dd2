/**
 * The shared HTTP layer's two principals (docs/console.md): on console route keys the authorizer's
 * answer must be a session's (its id beside the account), and a change must pass CSRF; on API route
 * keys it must be an API key's. Through real route modules, DynamoDB mocked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResponse } from '../../../functions/http/types.js';
import { ACCOUNT_ID, apiEvent, jsonBody, stubServiceEnv, unitContext, type ErrorBody, type EventOptions } from '../../helpers/unit-fixtures.js';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResponse>;

const ddb = mockClient(DynamoDBDocumentClient);
let createKey: Handler;
let listKeys: Handler;
let getScanner: Handler;
let signOut: Handler;

beforeAll(async () => {
  stubServiceEnv();
  createKey = (await import('../../../functions/console/keys/create.js')).handler;
  listKeys = (await import('../../../functions/console/keys/list.js')).handler;
  getScanner = (await import('../../../functions/api/scanners/get.js')).handler;
  signOut = (await import('../../../functions/console/session/sign-out.js')).handler;
});
afterAll(() => {
  ddb.restore();
  vi.unstubAllEnvs();
});
beforeEach(() => ddb.reset());

const CSRF = 'c'.repeat(43);
const SCANNER_ID = 'scn_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
const SESSION_ID = 'a'.repeat(64);

/** A console request: the authorizer's answer for a session (or `auth`), the CSRF cookie, and the header unless told otherwise. */
function consoleEvent(options: EventOptions & { csrfHeader?: string | null }): ApiEvent {
  const { csrfHeader = CSRF, auth = { accountId: ACCOUNT_ID, sessionId: SESSION_ID }, ...rest } = options;
  const event = apiEvent({ ...rest, auth, headers: { ...(csrfHeader === null ? {} : { 'x-csrf-token': csrfHeader }), ...rest.headers } });
  return { ...event, cookies: ['msc_session=token', `msc_csrf=${CSRF}`] };
}

const keyCreation = { method: 'POST', path: '/console/api/keys', body: JSON.stringify({ name: 'ci' }) };
const errorCode = (response: ApiResponse) => jsonBody<ErrorBody>(response).error.code;

describe('console routes', () => {
  it("create a key for the session's account when the CSRF header matches the cookie; only its hash and prefix are stored", async () => {
    ddb.on(PutCommand).resolves({});
    const response = await createKey(consoleEvent(keyCreation), unitContext());
    expect(response.statusCode).toBe(201);
    const { api_key: apiKey, prefix } = jsonBody<{ api_key: string; prefix: string }>(response);
    expect(prefix).toBe(apiKey.slice(0, 12));
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({ accountId: ACCOUNT_ID, name: 'ci', GSI1PK: `ACCT#${ACCOUNT_ID}#APIKEYS` });
    expect(JSON.stringify(item)).not.toContain(apiKey);
  });

  it.each([
    ['no X-CSRF-Token header', null],
    ['another value', 'd'.repeat(43)],
    ['a prefix of the cookie', CSRF.slice(0, 10)],
  ])('refuse a change with %s: 403 csrf_failed, nothing written', async (_case, csrfHeader) => {
    const response = await createKey(consoleEvent({ ...keyCreation, csrfHeader }), unitContext());
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('csrf_failed');
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('need no CSRF header to read', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    const response = await listKeys(consoleEvent({ path: '/console/api/keys', csrfHeader: null }), unitContext());
    expect(response.statusCode).toBe(200);
    expect(jsonBody(response)).toEqual({ data: [] });
  });

  it("answer 401 without a session, even with an API key's account", async () => {
    const signedOut = consoleEvent({ path: '/console/api/keys', auth: { authError: 'Sign in to the console first.' } });
    const withKey = consoleEvent({ path: '/console/api/keys', auth: { accountId: ACCOUNT_ID } });
    for (const request of [signedOut, withKey]) {
      const response = await listKeys(request, unitContext());
      expect(response.statusCode).toBe(401);
      expect(errorCode(response)).toBe('unauthorized');
    }
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe('an API route and its console twin', () => {
  const twin = {
    path: `/console/api/v1/scanners/${SCANNER_ID}`,
    routeKey: 'GET /console/api/v1/scanners/{scanner_id}',
    pathParameters: { scanner_id: SCANNER_ID },
  };

  it('the twin answers for the session (here: 404 for a scanner the account does not have)', async () => {
    ddb.on(GetCommand).resolves({});
    const response = await getScanner(consoleEvent(twin), unitContext());
    expect(response.statusCode).toBe(404);
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toMatchObject({ PK: `ACCT#${ACCOUNT_ID}` });
  });

  it("the API route takes no session: 401 for an answer that is a session's", async () => {
    const event = consoleEvent({ ...twin, path: `/v1/scanners/${SCANNER_ID}`, routeKey: 'GET /v1/scanners/{scanner_id}' });
    const response = await getScanner(event, unitContext());
    expect(response.statusCode).toBe(401);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});

describe('sign-out', () => {
  it("deletes the session's item (so a copy of the cookie is refused too) and clears both cookies", async () => {
    ddb.on(DeleteCommand).resolves({});
    const response = await signOut(consoleEvent({ method: 'POST', path: '/console/api/sign-out' }), unitContext());
    expect(response.statusCode).toBe(200);
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input.Key)).toEqual([{ PK: `CONSOLESESSION#${SESSION_ID}`, SK: 'CONSOLESESSION' }]);
    expect(response.cookies).toEqual([expect.stringMatching(/^msc_session=; .*Max-Age=0/), expect.stringMatching(/^msc_csrf=; .*Max-Age=0/)]);
  });
});
