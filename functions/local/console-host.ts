/**
 * The console on the local host (docs/console.md): the stand-in for API Gateway's JWT authorizer
 * (it verifies the `msc_session` cookie's JWT, which the host itself signs HS256 with a secret kept
 * in its data directory), the one-time sign-in link's step, and the built console's files with the
 * console's CSP. The routes themselves are the same units as on AWS (server.ts dispatches them).
 */
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jwtVerify, SignJWT } from 'jose';
import { ACCOUNT_CLAIM, cookiesOf, SESSION_COOKIE, sessionCookies } from '../http/console-session.js';
import { consoleCsp } from '../shared/console-csp.js';
import { redeemSignInToken, type SignInLinkStore } from '../domain/accounts/sign-in-links.js';
import { ApiError } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import type { ApiEvent, ApiResponse } from '../http/types.js';

/** A local session lasts as long as a Cognito ID token may be refreshed in a working day. */
export const LOCAL_SESSION_HOURS = 12;
const ISSUER = 'media-scanner-local-host';

/** What every answer under /console carries (the AWS host's CloudFront response headers policy sets the same). */
export const consoleSecurityHeaders = (mediaOrigin: string): Record<string, string> => ({
  'content-security-policy': consoleCsp(mediaOrigin),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});

export interface LocalConsoleOptions {
  /** The HS256 key of session JWTs (base64url), generated once in the data directory. */
  sessionSecret: string;
  signInLinks: Pick<SignInLinkStore, 'consume'>;
  /** s3rver's origin: the browser uploads to and plays from it. */
  mediaOrigin: string;
  /** The built console, or none (the frontend is not built here). */
  assets: readonly ConsoleAsset[] | undefined;
}

export interface ConsoleAsset {
  path: string;
  contentType: string;
  body: Uint8Array;
}

export const newSessionSecret = (): string => randomBytes(32).toString('base64url');

const keyOf = (secret: string) => Buffer.from(secret, 'base64url');

export async function signSession(secret: string, accountId: string): Promise<string> {
  return new SignJWT({ [ACCOUNT_CLAIM]: accountId })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${LOCAL_SESSION_HOURS}h`)
    .sign(keyOf(secret));
}

/** The JWT authorizer's part: the session cookie's claims when its JWT verifies, none otherwise (the route answers 401). */
export async function consoleAuthorizer(secret: string, event: Pick<ApiEvent, 'cookies' | 'headers'>): Promise<ApiEvent['requestContext']['authorizer']> {
  const token = cookiesOf(event).get(SESSION_COOKIE);
  if (!token) return {};
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { issuer: ISSUER, algorithms: ['HS256'] });
    return { jwt: { claims: payload as Record<string, string | number | boolean | string[]>, scopes: null } };
  } catch {
    return {};
  }
}

/** GET /console/auth/local?token=: a valid link sets the session's cookies and sends the browser to the console. */
export async function signInWithLink(options: LocalConsoleOptions, token: string, requestId: string): Promise<ApiResponse> {
  const accountId = await redeemSignInToken(options.signInLinks, token);
  if (!accountId) {
    return errorResponse(
      new ApiError('unauthorized', 'This sign-in link is unknown, used or expired: print a new one with `npm run admin -- console-link`.'),
      requestId,
    );
  }
  const session = await signSession(options.sessionSecret, accountId);
  // Plain http on loopback: a Secure cookie would never come back.
  const cookies = sessionCookies(session, randomBytes(32).toString('base64url'), false, LOCAL_SESSION_HOURS * 3600);
  return { statusCode: 303, headers: { location: '/console/', 'cache-control': 'no-store' }, body: '', cookies };
}

/** A console page or asset: History routing sends every extension-less path to index.html. */
export function consoleFile(assets: LocalConsoleOptions['assets'], pathname: string, requestId: string): ApiResponse {
  const relative = pathname.replace(/^\/console\/?/, '');
  const wanted = relative === '' || !relative.includes('.') ? 'index.html' : relative;
  const asset = assets?.find((a) => a.path === wanted);
  if (!asset) return errorResponse(new ApiError('not_found', assets ? 'No such console file.' : 'The console is not built on this host.'), requestId);
  return {
    statusCode: 200,
    // Hashed names never change; index.html names the current ones, so it is always fetched afresh.
    headers: { 'content-type': asset.contentType, 'cache-control': wanted === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable' },
    body: Buffer.from(asset.body).toString('base64'),
    isBase64Encoded: true,
  };
}

const buildModule = join(import.meta.dirname, '..', '..', 'console', 'build.ts');

/** The console built in memory at start, when its build is in this checkout. */
export async function buildLocalConsole(): Promise<ConsoleAsset[] | undefined> {
  if (!existsSync(buildModule)) return undefined;
  const { buildConsole } = (await import(pathToFileURL(buildModule).href)) as { buildConsole: (options: object) => Promise<ConsoleAsset[]> };
  return buildConsole({});
}
