/**
 * The console's server side on the local host (docs/console.md): the one-time sign-in link, the
 * session and CSRF cookies, sessions that end at once (sign-out, an owner disabled or signed out
 * everywhere with the admin CLI), the account's request limit on console routes, the console's own
 * routes (keys, ledger, media) and the twins of the API routes, each account-scoped like the API,
 * and the separation of the two credentials: a console route never takes an API key, an API route
 * never reads the session cookie.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { adminOutput, api, createAccount, runAdmin, type NewAccount } from '../helpers/api.js';
import { localDocumentClient, readRunningHost } from '../../functions/local/host.js';
import { dynamoSignInLinkStore } from '../../functions/adapters/table/sign-in-link-store.js';

const baseUrl = inject('baseUrl');
const dataDir = inject('dataDir');

interface Session {
  cookie: string;
  csrf: string;
  setCookies: string[];
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T & { error?: { code: string } };
}

const signInLink = async (accountId: string): Promise<string> =>
  adminOutput<{ sign_in_link: string }>(await runAdmin(['console-link', '--account', accountId])).sign_in_link;

const follow = (link: string) => fetch(link, { redirect: 'manual' });

async function signIn(accountId: string): Promise<Session> {
  const response = await follow(await signInLink(accountId));
  expect(response.status).toBe(303);
  const setCookies = response.headers.getSetCookie();
  const value = (name: string) =>
    setCookies
      .find((c) => c.startsWith(`${name}=`))!
      .split(';')[0]!
      .slice(name.length + 1);
  return { cookie: `msc_session=${value('msc_session')}; msc_csrf=${value('msc_csrf')}`, csrf: value('msc_csrf'), setCookies };
}

/** A console request as the console's script sends it: the cookies, and the CSRF header unless told otherwise. */
async function consoleCall<T = Record<string, unknown>>(
  session: Session | undefined,
  method: string,
  path: string,
  options: { json?: unknown; csrf?: string | null; authorization?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  const csrf = options.csrf === undefined ? session?.csrf : options.csrf;
  if (csrf !== null && csrf !== undefined) headers['x-csrf-token'] = csrf;
  if (options.authorization) headers.authorization = options.authorization;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as Answer<T>['body'] };
}

interface ApiKey {
  key_id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  api_key?: string;
}

let owner: NewAccount;
let other: NewAccount;
let session: Session;
let otherSession: Session;

beforeAll(async () => {
  [owner, other] = await Promise.all([createAccount({ plan: 'hobby', credits: 7 }), createAccount({ plan: 'beginner', credits: 1 })]);
  [session, otherSession] = await Promise.all([signIn(owner.accountId), signIn(other.accountId)]);
});

describe('signing in with a one-time link', () => {
  test('sets the session HttpOnly and the CSRF token readable, both SameSite=Strict on / and not Secure over plain http', () => {
    const [sessionCookie, csrfCookie] = ['msc_session', 'msc_csrf'].map((name) => session.setCookies.find((c) => c.startsWith(`${name}=`))!);
    expect(sessionCookie).toMatch(/; HttpOnly;/);
    expect(csrfCookie).not.toMatch(/HttpOnly/);
    for (const cookie of [sessionCookie, csrfCookie]) {
      expect(cookie).toMatch(/; Path=\/;/);
      expect(cookie).toMatch(/; SameSite=Strict;/);
      expect(cookie).not.toMatch(/Secure/);
    }
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('sends the browser to the console, and the session names the account', async () => {
    const response = await follow(await signInLink(owner.accountId));
    expect(response.headers.get('location')).toBe('/console/');
    const answer = await consoleCall(session, 'GET', '/console/api/session');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ account_id: owner.accountId, plan: 'hobby', host: 'local' });
  });

  test('a link works once: the second use is refused', async () => {
    const link = await signInLink(owner.accountId);
    expect((await follow(link)).status).toBe(303);
    const again = await follow(link);
    expect(again.status).toBe(401);
    expect(again.headers.getSetCookie()).toEqual([]);
  });

  test('an expired link is refused', async () => {
    const running = (await readRunningHost(dataDir))!;
    const doc = localDocumentClient(running.dynamodb_endpoint);
    const token = 'expired-token-of-the-console-test';
    await dynamoSignInLinkStore({ doc, tableName: running.table }).put({
      tokenHash: createHash('sha256').update(token).digest('hex'),
      accountId: owner.accountId,
      expiresAt: Date.now() - 1,
    });
    doc.destroy();
    expect((await follow(`${baseUrl}/console/auth/local?token=${token}`)).status).toBe(401);
  });

  test('a forged or missing session is no session: 401', async () => {
    expect((await consoleCall(undefined, 'GET', '/console/api/keys')).body.error?.code).toBe('unauthorized');
    const forged = { ...session, cookie: `msc_session=${session.cookie.split(';')[0]!.split('=')[1]!.slice(0, -2)}xx; msc_csrf=${session.csrf}` };
    expect((await consoleCall(forged, 'GET', '/console/api/keys')).status).toBe(401);
  });
});

describe('API keys in the console', () => {
  test('a change without the CSRF header, or with another value, is refused 403 csrf_failed', async () => {
    const missing = await consoleCall(session, 'POST', '/console/api/keys', { json: { name: 'ci' }, csrf: null });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toMatchObject({ code: 'csrf_failed', type: 'permission_error' });
    const wrong = await consoleCall(session, 'POST', '/console/api/keys', { json: { name: 'ci' }, csrf: `${session.csrf.slice(1)}A` });
    expect(wrong.status).toBe(403);
  });

  test('create, use, list with its last use, revoke: the key is refused from then on', async () => {
    const created = await consoleCall<ApiKey>(session, 'POST', '/console/api/keys', { json: { name: 'ci' } });
    expect(created.status).toBe(201);
    const apiKey = created.body.api_key!;
    expect(apiKey).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(created.body).toMatchObject({ name: 'ci', prefix: apiKey.slice(0, 12), last_used_at: null, revoked_at: null });

    const account = await api(baseUrl, apiKey).get<{ account_id: string }>('/v1/account');
    expect(account.status).toBe(200);
    expect(account.body.account_id).toBe(owner.accountId);

    const listed = await consoleCall<{ data: ApiKey[] }>(session, 'GET', '/console/api/keys');
    expect(listed.body.data.map((k) => k.name)).toEqual(['ci', 'default']);
    expect(listed.body.data[0]!.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);

    const revoked = await consoleCall<ApiKey>(session, 'DELETE', `/console/api/keys/${created.body.key_id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await api(baseUrl, apiKey).get('/v1/account')).status).toBe(401);
  });

  test("another account's key id is 404, and stays unrevoked", async () => {
    const created = await consoleCall<ApiKey>(session, 'POST', '/console/api/keys', { json: { name: 'mine' } });
    const foreign = await consoleCall(otherSession, 'DELETE', `/console/api/keys/${created.body.key_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe('not_found');
    expect((await api(baseUrl, created.body.api_key).get('/v1/account')).status).toBe(200);
  });

  test('a name is 1 to 64 characters', async () => {
    expect((await consoleCall(session, 'POST', '/console/api/keys', { json: { name: ' ' } })).status).toBe(400);
    expect((await consoleCall(session, 'POST', '/console/api/keys', { json: { name: 'x'.repeat(65) } })).status).toBe(400);
  });
});

describe('the two credentials stay apart', () => {
  test('a twin of an API route answers for the session, in the API shape', async () => {
    const answer = await consoleCall<{ account_id: string }>(session, 'GET', '/console/api/v1/account');
    expect(answer.status).toBe(200);
    expect(answer.body.account_id).toBe(owner.accountId);
  });

  test('console routes and twins refuse an API key', async () => {
    for (const path of ['/console/api/v1/account', '/console/api/keys']) {
      expect((await consoleCall(undefined, 'GET', path, { authorization: `Bearer ${owner.apiKey}` })).status).toBe(401);
    }
  });

  test('API routes ignore the session cookie', async () => {
    const response = await fetch(`${baseUrl}/v1/account`, { headers: { cookie: session.cookie } });
    expect(response.status).toBe(401);
  });

  test("another account's upload is 404 through a twin and through the media route", async () => {
    const upload = await api(baseUrl, owner.apiKey).post<{ upload_id: string }>('/v1/uploads', {
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      size_bytes: 1000,
    });
    expect(upload.status).toBe(201);
    const id = upload.body.upload_id;
    expect((await consoleCall(otherSession, 'GET', `/console/api/v1/uploads/${id}`)).status).toBe(404);
    expect((await consoleCall(otherSession, 'GET', `/console/api/uploads/${id}/media`)).status).toBe(404);
    // The owner's is there, but has no bytes to play until it is completed.
    expect((await consoleCall(session, 'GET', `/console/api/v1/uploads/${id}`)).status).toBe(200);
    expect((await consoleCall(session, 'GET', `/console/api/uploads/${id}/media`)).body.error?.code).toBe('upload_not_ready');
  });
});

describe('the rest of the console host', () => {
  test('the ledger pages in the API list envelope', async () => {
    const page = await consoleCall<{ object: string; data: { reason: string; credits: number }[]; next_cursor: string | null }>(
      session,
      'GET',
      '/console/api/ledger?limit=10',
    );
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ object: 'list', data: [{ reason: 'account_opened', credits: 7 }], next_cursor: null });
  });

  test('every answer under /console carries the CSP and security headers', async () => {
    const running = (await readRunningHost(dataDir))!;
    for (const path of ['/console/', '/console/keys', '/console/api/session']) {
      const response = await fetch(`${baseUrl}${path}`, { headers: { cookie: session.cookie } });
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'; script-src 'self'");
      expect(csp).toContain(`connect-src 'self' ${running.s3_endpoint}`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  test("the media bucket lets the host's own origin PUT and GET from the browser, and no other", async () => {
    const running = (await readRunningHost(dataDir))!;
    const preflight = await fetch(`${running.s3_endpoint}/${running.bucket}/accounts/x/uploads/y/source`, {
      method: 'OPTIONS',
      headers: { origin: baseUrl, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('PUT, GET');
    // s3rver answers a matched preflight with `*`: that only the host's origins match is what refusing another shows.
    const foreign = await fetch(`${running.s3_endpoint}/${running.bucket}/accounts/x/uploads/y/source`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'PUT' },
    });
    expect(foreign.status).toBe(403);
  });

  test('signing out clears both cookies and sends the browser to the console', async () => {
    const signedIn = await signIn(owner.accountId);
    const response = await fetch(`${baseUrl}/console/api/sign-out`, { method: 'POST', headers: { cookie: signedIn.cookie, 'x-csrf-token': signedIn.csrf } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ redirect: '/console/' });
    const cleared = response.headers.getSetCookie();
    expect(cleared).toHaveLength(2);
    for (const cookie of cleared) expect(cookie).toMatch(/^msc_(session|csrf)=; .*Max-Age=0/);
  });
});

describe('sessions that end at once', () => {
  const whoAmI = (signedIn: Session) => consoleCall(signedIn, 'GET', '/console/api/session');
  const owners = async (command: string, accountId: string) =>
    adminOutput<Record<string, unknown>>(await runAdmin(['owners', command, '--account', accountId]));

  test('a signed-out session is refused from the next request, even with a copy of its cookie', async () => {
    const signedIn = await signIn(owner.accountId);
    const elsewhere = await signIn(owner.accountId);
    expect((await consoleCall(signedIn, 'POST', '/console/api/sign-out')).status).toBe(200);
    // The browser dropped its cookies; a copy of them (another tab's, a stolen one) is refused all the same.
    for (const path of ['/console/api/session', '/console/api/keys', '/console/api/v1/account']) {
      const replayed = await consoleCall(signedIn, 'GET', path);
      expect(replayed.status, path).toBe(401);
      expect(replayed.body.error?.code).toBe('unauthorized');
    }
    // Only that session ended.
    expect((await whoAmI(elsewhere)).status).toBe(200);
  });

  test('an owner disabled with the admin CLI is refused at once, in every session, and cannot sign in until enabled', async () => {
    const account = await createAccount({ plan: 'hobby', credits: 1 });
    const [first, second] = await Promise.all([signIn(account.accountId), signIn(account.accountId)]);
    const pending = await signInLink(account.accountId);
    expect((await whoAmI(first)).status).toBe(200);

    expect(await owners('disable', account.accountId)).toMatchObject({ account_id: account.accountId, owner: `local:${account.accountId}`, disabled: true });
    for (const signedIn of [first, second]) expect((await whoAmI(signedIn)).status).toBe(401);
    // A link printed before is refused when followed, and no new one is printed.
    expect((await follow(pending)).status).toBe(401);
    const refused = await runAdmin(['console-link', '--account', account.accountId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('owners enable');
    // The account's API key is the account's, not the owner's: it still works.
    expect((await api(baseUrl, account.apiKey).get('/v1/account')).status).toBe(200);

    await owners('enable', account.accountId);
    expect((await whoAmI(first)).status).toBe(401);
    expect((await whoAmI(await signIn(account.accountId))).status).toBe(200);
  });

  test("signing an owner out everywhere ends every session of theirs, and no other account's", async () => {
    const account = await createAccount({ plan: 'hobby', credits: 1 });
    const [first, second] = await Promise.all([signIn(account.accountId), signIn(account.accountId)]);
    const bystander = await signIn(other.accountId);
    expect(await owners('sign-out', account.accountId)).toMatchObject({ sessions_ended: true });
    for (const signedIn of [first, second]) expect((await whoAmI(signedIn)).status).toBe(401);
    expect((await whoAmI(bystander)).status).toBe(200);
    expect((await whoAmI(await signIn(account.accountId))).status).toBe(200);
  });

  test('moving a local owner is refused: a sign-in link names its account', async () => {
    const moved = await runAdmin(['owners', 'move', '--account', owner.accountId, '--to', other.accountId]);
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain('no owner to move');
    // Nothing changed: the owner's session still answers.
    expect((await whoAmI(session)).body).toMatchObject({ account_id: owner.accountId });
  });
});

describe("the account's request limit", () => {
  test("console routes and twins take the account's request token: past its rate, 429 rate_limited with Retry-After and the rate headers, as its API key gets", async () => {
    const rate = { perSecond: 1, burst: 3 };
    const account = await createAccount({ plan: 'hobby', credits: 1, requestRate: rate });
    const signedIn = await signIn(account.accountId);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => consoleCall(signedIn, 'GET', i % 2 ? '/console/api/v1/account' : '/console/api/keys')),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(rate.burst);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
      expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(rate.burst));
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
      // The console's security headers on a refusal too.
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    // One bucket per account, whichever credential: its API key finds it empty as well.
    expect((await api(baseUrl, account.apiKey).get('/v1/account')).status).toBe(429);
  });
});
