/**
 * Console sign-in on AWS (docs/console.md): the OAuth 2.0 authorization code flow with PKCE against
 * the Cognito user pool's managed login. The verifier and the state wait in a short-lived cookie of
 * the sign-in path (SameSite=Lax, since Cognito's redirect back is a cross-site navigation); the
 * callback proves the state, trades the code for tokens and keeps the ID token as the session.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';

/** The session cookie (the ID token, which the API's JWT authorizer verifies) and the CSRF token's cookie. */
export const SESSION_COOKIE = 'msc_session';
export const CSRF_COOKIE = 'msc_csrf';
/** `<state>.<verifier>` between the sign-in redirect and the callback. */
export const SIGN_IN_COOKIE = 'msc_sign_in';
const SIGN_IN_PATH = '/console/auth';
/** Minutes a person may spend on the managed login page before the callback refuses the attempt. */
const SIGN_IN_MINUTES = 10;
/** Where the console lives on its origin: the callback sends the signed-in person there. */
export const CONSOLE_HOME = '/console/';

export interface CognitoClient {
  /** The user pool domain's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  readonly clientId: string;
  /** `https://<console origin>/console/auth/callback`, as registered on the app client. */
  readonly redirectUri: string;
}

export interface Tokens {
  readonly idToken: string;
  /** Seconds the ID token is valid for. */
  readonly expiresIn: number;
}

/** The token endpoint, behind a port: the code and the verifier in, the tokens out. */
export type CodeExchange = (code: string, verifier: string) => Promise<Tokens>;

/** 32 random bytes, base64url: PKCE verifiers (RFC 7636: 43 characters), states and CSRF tokens. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

interface CookieOptions {
  readonly httpOnly: boolean;
  readonly sameSite: 'Strict' | 'Lax';
  readonly path: string;
  readonly maxAgeSeconds: number;
}

/** A Set-Cookie value; always Secure, since AWS serves the console over https only. */
function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'Secure',
    ...(options.httpOnly ? ['HttpOnly'] : []),
    `SameSite=${options.sameSite}`,
  ].join('; ');
}

/** The value of cookie `name` among API Gateway's `cookies` (`name=value` each), if present. */
export function cookieValue(cookies: readonly string[] | undefined, name: string): string | undefined {
  for (const cookie of cookies ?? []) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === name) return cookie.slice(at + 1).trim();
  }
  return undefined;
}

/** The redirect to Cognito's authorize endpoint, and the cookie that remembers this attempt. */
export function startSignIn(client: CognitoClient): { location: string; cookie: string } {
  const state = randomToken();
  const verifier = randomToken();
  const location = new URL('/oauth2/authorize', client.domain);
  location.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid email',
    state,
    code_challenge: pkceChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const cookie = setCookie(SIGN_IN_COOKIE, `${state}.${verifier}`, {
    httpOnly: true,
    sameSite: 'Lax',
    path: SIGN_IN_PATH,
    maxAgeSeconds: SIGN_IN_MINUTES * 60,
  });
  return { location: location.toString(), cookie };
}

const sameText = (a: string, b: string): boolean => {
  const [left, right] = [Buffer.from(a), Buffer.from(b)];
  return left.length === right.length && timingSafeEqual(left, right);
};

export interface Callback {
  readonly code?: string | undefined;
  readonly state?: string | undefined;
  /** Cognito's own refusal (`access_denied`...), in place of a code. */
  readonly error?: string | undefined;
  readonly signInCookie?: string | undefined;
}

/**
 * The callback: the state must be the one this browser's sign-in cookie holds (otherwise the code
 * may be someone else's, RFC 6749 §10.12); the code is traded with the verifier only this browser
 * has. Answers the session cookies (and the sign-in cookie's removal).
 */
export async function completeSignIn(callback: Callback, exchange: CodeExchange): Promise<{ cookies: string[] }> {
  if (callback.error) throw new ApiError('unauthorized', `Sign-in did not complete: ${callback.error}.`);
  if (!callback.code || !callback.state) throw new ApiError('validation_failed', 'The callback needs a code and a state.', callback.code ? 'state' : 'code');
  const [state, verifier] = callback.signInCookie?.split('.') ?? [];
  if (!state || !verifier)
    throw new ApiError('unauthorized', `No sign-in is in progress in this browser (it expires after ${SIGN_IN_MINUTES} minutes): sign in again.`);
  if (!sameText(state, callback.state)) throw new ApiError('unauthorized', 'The sign-in state does not match this browser: sign in again.', 'state');

  const tokens = await exchange(callback.code, verifier);
  const session = { sameSite: 'Strict', path: '/', maxAgeSeconds: tokens.expiresIn } as const;
  return {
    cookies: [
      setCookie(SESSION_COOKIE, tokens.idToken, { ...session, httpOnly: true }),
      // Read by the console's script, which echoes it in X-CSRF-Token on every change.
      setCookie(CSRF_COOKIE, randomToken(), { ...session, httpOnly: false }),
      setCookie(SIGN_IN_COOKIE, '', { httpOnly: true, sameSite: 'Lax', path: SIGN_IN_PATH, maxAgeSeconds: 0 }),
    ],
  };
}
