/**
 * The console on the local host (docs/console.md): the one-time sign-in link's step (it begins a
 * session, as the AWS host's callback does), the local owner each account has, and the built
 * console's files with the console's CSP. The session is checked by the API's own authorizer and the
 * routes are the same units as on AWS (server.ts dispatches them).
 */
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sessionCookies } from '../http/console-session.js';
import { consoleCsp } from '../shared/console-csp.js';
import { redeemSignInToken, type SignInLinkStore } from '../domain/accounts/sign-in-links.js';
import { SESSION_HOURS, startSession, type ConsoleSessionStore } from '../domain/console/sessions.js';
import type { OwnerDirectory } from '../domain/console/owners.js';
import { ApiError } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import type { ApiResponse } from '../http/types.js';

/** What every answer under /console carries (the AWS host's CloudFront response headers policy sets the same). */
export const consoleSecurityHeaders = (mediaOrigin: string): Record<string, string> => ({
  'content-security-policy': consoleCsp(mediaOrigin),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});

export interface LocalConsoleOptions {
  signInLinks: Pick<SignInLinkStore, 'consume'>;
  sessions: Pick<ConsoleSessionStore, 'put' | 'standing'>;
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

/**
 * The local host has no identity provider: whoever holds an account's sign-in links is its one
 * owner, named after the account. The admin CLI's `owners` commands name them by `--account`.
 */
export const localOwner = (accountId: string): string => `local:${accountId}`;

/**
 * The local host's owner directory (domain/console/owners.ts): each account's local owner. Whether
 * they may sign in is the table's owner standing alone (startSession refuses a disabled one), and
 * an owner cannot move, since a link names its account.
 */
export const localOwnerDirectory: OwnerDirectory = {
  ownerOf: (accountId) => Promise.resolve(localOwner(accountId)),
  setEnabled: () => Promise.resolve(),
  setAccount: () =>
    Promise.reject(new Error("A local owner is their account's (a sign-in link names the account): there is no owner to move on the local host.")),
};

/** GET /console/auth/local?token=: a valid link begins a session, sets its cookies and sends the browser to the console. */
export async function signInWithLink(options: LocalConsoleOptions, token: string, requestId: string): Promise<ApiResponse> {
  try {
    const accountId = await redeemSignInToken(options.signInLinks, token);
    if (!accountId) throw new ApiError('unauthorized', 'This sign-in link is unknown, used or expired: print a new one with `npm run admin -- console-link`.');
    const { token: session } = await startSession(options.sessions, { owner: localOwner(accountId), accountId }, Date.now());
    // Plain http on loopback: a Secure cookie would never come back.
    const cookies = sessionCookies(session, randomBytes(32).toString('base64url'), false, SESSION_HOURS * 3600);
    return { statusCode: 303, headers: { location: '/console/', 'cache-control': 'no-store' }, body: '', cookies };
  } catch (error) {
    // A disabled owner's link is refused as an unknown one is.
    if (error instanceof ApiError) return errorResponse(error, requestId);
    throw error;
  }
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
