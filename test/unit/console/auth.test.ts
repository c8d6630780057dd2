/**
 * The console's AWS sign-in steps (functions/console/auth): the redirect to Cognito's managed login
 * with PKCE, and the callback that trades the code for the owner its ID token names and begins a
 * session of theirs, with Cognito's token endpoint answered by a stubbed fetch and DynamoDB mocked.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResponse } from '../../../functions/http/types.js';
import { ACCOUNT_ID, apiEvent, jsonBody, stubServiceEnv, unitContext, type ErrorBody } from '../../helpers/unit-fixtures.js';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResponse>;

const COGNITO_DOMAIN = 'https://msc-test.auth.eu-west-1.amazoncognito.com';
const CLIENT_ID = 'client-123';
const CONSOLE_URL = 'https://d111111abcdef8.cloudfront.net';
const REDIRECT_URI = `${CONSOLE_URL}/console/auth/callback`;
const OWNER = '7f3e2c1a-0000-4000-8000-000000000001';
/** An ID token as Cognito's token endpoint answers it (the callback reads its claims; the signature is TLS's to vouch for). */
const idToken = (claims: Record<string, unknown>) =>
  ['header', Buffer.from(JSON.stringify({ token_use: 'id', aud: CLIENT_ID, sub: OWNER, ...claims })).toString('base64url'), 'signature'].join('.');
const ID_TOKEN = idToken({ 'custom:account_id': ACCOUNT_ID });

const ddb = mockClient(DynamoDBDocumentClient);
const tokenEndpoint = vi.fn<typeof fetch>();
let signIn: Handler;
let callback: Handler;

beforeAll(async () => {
  stubServiceEnv({ COGNITO_DOMAIN, COGNITO_CLIENT_ID: CLIENT_ID, CONSOLE_URL });
  vi.stubGlobal('fetch', tokenEndpoint);
  signIn = (await import('../../../functions/console/auth/sign-in.js')).handler;
  callback = (await import('../../../functions/console/auth/callback.js')).handler;
});

afterAll(() => ddb.restore());

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  tokenEndpoint.mockReset();
  tokenEndpoint.mockResolvedValue(Response.json({ id_token: ID_TOKEN, access_token: 'a', expires_in: 43_200, token_type: 'Bearer' }));
});

const attributesOf = (cookie: string) => cookie.split('; ').slice(1);

async function startSignIn() {
  const response = await signIn(apiEvent({ path: '/console/auth/sign-in', auth: null }), unitContext());
  const [cookie = ''] = response.cookies ?? [];
  const [, value = ''] = /^msc_sign_in=([^;]+)/.exec(cookie) ?? [];
  const [state = '', verifier = ''] = value.split('.');
  return { response, cookie, state, verifier, location: new URL(response.headers.location ?? '') };
}

const callbackEvent = (query: Record<string, string>, signInCookie?: string) => {
  const event = apiEvent({ path: '/console/auth/callback', query, auth: null });
  return signInCookie === undefined ? event : { ...event, cookies: ['other=1', `msc_sign_in=${signInCookie}`] };
};

describe('GET /console/auth/sign-in', () => {
  it("redirects to Cognito's authorize endpoint with an S256 challenge of the verifier it keeps in a short-lived Lax cookie", async () => {
    const { response, cookie, state, verifier, location } = await startSignIn();
    expect(response.statusCode).toBe(302);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(location.origin + location.pathname).toBe(`${COGNITO_DOMAIN}/oauth2/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(verifier).toMatch(/^[\w-]{43}$/);
    expect(attributesOf(cookie).sort()).toEqual(['HttpOnly', 'Max-Age=600', 'Path=/console/auth', 'SameSite=Lax', 'Secure']);
  });

  it('starts every attempt with a new state and verifier', async () => {
    const [first, second] = [await startSignIn(), await startSignIn()];
    expect(first.state).not.toBe(second.state);
    expect(first.verifier).not.toBe(second.verifier);
  });
});

describe('GET /console/auth/callback', () => {
  it("trades the code with the verifier, begins the ID token's owner's session (only its token's hash stored), sets its cookies, clears the attempt and opens the console", async () => {
    const { state, verifier } = await startSignIn();
    const response = await callback(callbackEvent({ code: 'the-code', state }, `${state}.${verifier}`), unitContext());

    expect(tokenEndpoint).toHaveBeenCalledOnce();
    const [url, init] = tokenEndpoint.mock.calls[0]!;
    expect((url as URL).href).toBe(`${COGNITO_DOMAIN}/oauth2/token`);
    expect(init?.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(init?.body as URLSearchParams))).toEqual({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      code: 'the-code',
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });

    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/console/');
    const [session = '', csrf = '', cleared = ''] = response.cookies ?? [];
    const token = /^msc_session=([\w-]{43})$/.exec(session.split('; ')[0]!)?.[1] ?? '';
    expect(token, 'a token of our own, not the ID token').not.toBe('');
    expect(attributesOf(session).sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict', 'Secure']);
    const [put] = ddb.commandCalls(PutCommand);
    expect(put!.args[0].input.Item).toMatchObject({
      PK: `CONSOLESESSION#${createHash('sha256').update(token).digest('hex')}`,
      accountId: ACCOUNT_ID,
      owner: OWNER,
      generation: 0,
    });
    expect(JSON.stringify(put!.args[0].input.Item)).not.toContain(token);
    expect(csrf.split('; ')[0]).toMatch(/^msc_csrf=[\w-]{43}$/);
    // The console's script reads it: not HttpOnly.
    expect(attributesOf(csrf).sort()).toEqual(['Max-Age=43200', 'Path=/', 'SameSite=Strict', 'Secure']);
    expect(
      cleared
        .split('; ')
        .slice(0, 1)
        .concat(
          attributesOf(cleared)
            .filter((a) => a.startsWith('Max-Age') || a.startsWith('Path'))
            .sort(),
        ),
    ).toEqual(['msc_sign_in=', 'Max-Age=0', 'Path=/console/auth']);
  });

  it('refuses a state that is not the one this browser started with, without calling Cognito', async () => {
    const { verifier } = await startSignIn();
    const other = await startSignIn();
    const response = await callback(callbackEvent({ code: 'the-code', state: other.state }, `tampered.${verifier}`), unitContext());
    expect(response.statusCode).toBe(401);
    expect(jsonBody<ErrorBody>(response).error).toMatchObject({ code: 'unauthorized', param: 'state' });
    expect(response.cookies).toBeUndefined();
    expect(tokenEndpoint).not.toHaveBeenCalled();
  });

  it('refuses a callback when no sign-in is in progress in this browser', async () => {
    const response = await callback(callbackEvent({ code: 'the-code', state: 'some-state' }), unitContext());
    expect(response.statusCode).toBe(401);
    expect(jsonBody<ErrorBody>(response).error.code).toBe('unauthorized');
    expect(tokenEndpoint).not.toHaveBeenCalled();
  });

  it('answers 400 naming the missing code, and 401 when Cognito reports an error instead of a code', async () => {
    const missing = await callback(callbackEvent({ state: 's' }, 's.v'), unitContext());
    expect(missing.statusCode).toBe(400);
    expect(jsonBody<ErrorBody>(missing).error).toMatchObject({ code: 'validation_failed', param: 'code' });
    const denied = await callback(callbackEvent({ error: 'access_denied', state: 's' }, 's.v'), unitContext());
    expect(denied.statusCode).toBe(401);
    expect(jsonBody<ErrorBody>(denied).error.message).toContain('access_denied');
  });

  it('answers 401 when the token endpoint refuses the code (used, expired, or the verifier does not match)', async () => {
    tokenEndpoint.mockResolvedValue(Response.json({ error: 'invalid_grant' }, { status: 400 }));
    const response = await callback(callbackEvent({ code: 'used', state: 's' }, 's.v'), unitContext());
    expect(response.statusCode).toBe(401);
    expect(jsonBody<ErrorBody>(response).error.code).toBe('unauthorized');
    expect(response.cookies).toBeUndefined();
  });
});

describe('GET /console/auth/callback: who may begin a session', () => {
  const signInWith = async (claims: Record<string, unknown>) => {
    tokenEndpoint.mockResolvedValue(Response.json({ id_token: idToken(claims), access_token: 'a', expires_in: 300, token_type: 'Bearer' }));
    const { state, verifier } = await startSignIn();
    return callback(callbackEvent({ code: 'the-code', state }, `${state}.${verifier}`), unitContext());
  };

  it('refuses an owner who belongs to no account (401), beginning no session', async () => {
    const response = await signInWith({});
    expect(response.statusCode).toBe(401);
    expect(jsonBody<ErrorBody>(response).error.message).toContain('custom:account_id');
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('refuses an owner an operator has disabled (401)', async () => {
    ddb.on(GetCommand, { Key: { PK: `CONSOLEOWNER#${OWNER}`, SK: 'CONSOLEOWNER' } }).resolves({ Item: { generation: 3, disabled: true } });
    const response = await signInWith({ 'custom:account_id': ACCOUNT_ID });
    expect(response.statusCode).toBe(401);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it("begins a moved owner's session at their current generation, in the account the ID token names", async () => {
    ddb.on(GetCommand, { Key: { PK: `CONSOLEOWNER#${OWNER}`, SK: 'CONSOLEOWNER' } }).resolves({ Item: { generation: 3 } });
    expect((await signInWith({ 'custom:account_id': 'acct_moved' })).statusCode).toBe(302);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.Item).toMatchObject({ accountId: 'acct_moved', generation: 3 });
  });

  it('answers 500, not a session, for an ID token of another client', async () => {
    const response = await signInWith({ 'custom:account_id': ACCOUNT_ID, aud: 'another-client' });
    expect(response.statusCode).toBe(500);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });
});
