/**
 * The console's session as HTTP sees it (docs/console.md): its cookies (the session's token, which
 * the authorizer reads on console routes only, and the CSRF token) and the double-submit CSRF check
 * on every change. Console routes and the console's twins of API routes go through here; API-key
 * routes never do.
 */
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import type { ApiEvent } from './types.js';

export const SESSION_COOKIE = 'msc_session';
export const CSRF_COOKIE = 'msc_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** The request's cookies: HTTP APIs hand them over in `cookies` (payload 2.0, the authorizer's event too), not as a Cookie header. */
export function cookiesOf(event: { cookies?: string[] | undefined; headers?: Record<string, string | undefined> | undefined }): Map<string, string> {
  const pairs = event.cookies ?? (event.headers?.cookie ?? '').split(';');
  const cookies = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at > 0) {
      const name = pair.slice(0, at).trim();
      // The first of two same-named cookies wins, as browsers send the most specific path first.
      if (!cookies.has(name)) cookies.set(name, pair.slice(at + 1).trim());
    }
  }
  return cookies;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Double submit: a change must echo the `msc_csrf` cookie, which only a page of the console's own origin can read. */
export function checkCsrf(event: ApiEvent): void {
  if (SAFE_METHODS.has(event.requestContext.http.method)) return;
  const cookie = cookiesOf(event).get(CSRF_COOKIE);
  const header = event.headers[CSRF_HEADER];
  if (!cookie || !header || !sameText(cookie, header)) {
    throw new ApiError('csrf_failed', `Send the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header.`, 'X-CSRF-Token');
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The attributes every console cookie carries; Secure wherever the console is served over https (always on AWS). */
const attributes = (secure: boolean, maxAgeSeconds: number) => `Path=/; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;

/** Set-Cookie values of a new session: the session HttpOnly, the CSRF token readable by the console's script. */
export const sessionCookies = (session: string, csrf: string, secure: boolean, maxAgeSeconds: number): string[] => [
  `${SESSION_COOKIE}=${session}; HttpOnly; ${attributes(secure, maxAgeSeconds)}`,
  `${CSRF_COOKIE}=${csrf}; ${attributes(secure, maxAgeSeconds)}`,
];

/**
 * The AWS sign-in attempt's cookie (`<state>.<verifier>`, functions/console/auth): only the sign-in
 * paths see it, and SameSite=Lax, since Cognito's redirect back to the callback is a cross-site navigation.
 */
export const SIGN_IN_COOKIE = 'msc_sign_in';
export const signInCookie = (attempt: string, maxAgeSeconds: number): string =>
  `${SIGN_IN_COOKIE}=${attempt}; HttpOnly; Path=/console/auth; SameSite=Lax; Max-Age=${maxAgeSeconds}; Secure`;

/** Set-Cookie values that end the session. */
export const clearedSessionCookies = (secure: boolean): string[] => [
  `${SESSION_COOKIE}=; HttpOnly; ${attributes(secure, 0)}`,
  `${CSRF_COOKIE}=; ${attributes(secure, 0)}`,
];
