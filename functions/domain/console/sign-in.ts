/**
 * Console sign-in on AWS (docs/console-aws.md): the OAuth 2.0 authorization code flow with PKCE
 * against the Cognito user pool's managed login. The state and the verifier of an attempt wait in
 * the browser (a short-lived cookie the handlers keep); the callback proves the state, trades the
 * code with the verifier for the owner it names, and begins a session of theirs (sessions.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Owner } from './sessions.js';

/** Minutes a person may spend on the managed login page before the callback refuses the attempt. */
export const SIGN_IN_MINUTES = 10;

export interface CognitoClient {
  /** The user pool domain's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  readonly clientId: string;
  /** `https://<console origin>/console/auth/callback`, as registered on the app client. */
  readonly redirectUri: string;
}

/** The token endpoint, behind a port: the code and the verifier in, the owner its ID token names out. */
export type CodeExchange = (code: string, verifier: string) => Promise<Owner>;

/** 32 random bytes, base64url: PKCE verifiers (RFC 7636: 43 characters), states and CSRF tokens. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** The redirect to Cognito's authorize endpoint, and the attempt (`<state>.<verifier>`) the browser keeps until the callback. */
export function startSignIn(client: CognitoClient): { location: string; attempt: string } {
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
  return { location: location.toString(), attempt: `${state}.${verifier}` };
}

export interface Callback {
  readonly code?: string | undefined;
  readonly state?: string | undefined;
  /** Cognito's own refusal (`access_denied`...), in place of a code. */
  readonly error?: string | undefined;
  /** The attempt this browser kept since its sign-in began. */
  readonly attempt?: string | undefined;
}

/**
 * The callback: the state must be the one this browser's attempt holds (otherwise the code may be
 * someone else's, RFC 6749 §10.12), and the code is traded with the verifier only this browser has.
 */
export async function completeSignIn(callback: Callback, exchange: CodeExchange): Promise<Owner> {
  if (callback.error) throw new ApiError('unauthorized', `Sign-in did not complete: ${callback.error}.`);
  if (!callback.code || !callback.state) throw new ApiError('validation_failed', 'The callback needs a code and a state.', callback.code ? 'state' : 'code');
  const [state, verifier] = callback.attempt?.split('.') ?? [];
  if (!state || !verifier)
    throw new ApiError('unauthorized', `No sign-in is in progress in this browser (it expires after ${SIGN_IN_MINUTES} minutes): sign in again.`);
  // The state is no secret (it travels in the URL): a plain comparison.
  if (state !== callback.state) throw new ApiError('unauthorized', 'The sign-in state does not match this browser: sign in again.', 'state');
  return exchange(callback.code, verifier);
}
