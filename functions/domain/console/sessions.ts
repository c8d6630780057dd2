/**
 * Console sessions (docs/console.md), the same on both hosts: the browser holds a random token in
 * an HttpOnly cookie, the table holds its SHA-256 (the session's id) with the account and the
 * owner, and the authorizer reads that item on every console request, as it reads an API key.
 * Signing out deletes the item. Disabling an owner or moving them to another account moves the
 * owner's generation on: a session keeps the generation it began with, so every session of theirs
 * stops matching with one write, and a sign-in racing the change cannot outlive it. Either takes
 * effect at the next request that reads the table: at once locally, within the authorizer's cache
 * (API_KEY_CACHE_SECONDS, at most 5 s) on AWS.
 */
import { createHash, randomBytes } from 'node:crypto';
import { requireAccount } from '../accounts/accounts.js';
import type { AccountStore } from '../accounts/ports.js';
import { requestRateOf, takeRequestToken, type RateVerdict, type RequestBucketStore } from '../accounts/request-limits.js';
import { ApiError } from '../errors.js';

/** A session lasts a working day; then the owner signs in again. */
export const SESSION_HOURS = 12;

/** Who signs in: the owner (Cognito's `sub` on AWS; the account's local owner on the local host) and the account they own. */
export interface Owner {
  readonly owner: string;
  readonly accountId: string;
}

export interface ConsoleSession extends Owner {
  /** SHA-256 (hex) of the cookie's token: the item's key, and what routes are told; never the token itself. */
  readonly sessionId: string;
  /** The owner's generation when the session began. */
  readonly generation: number;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** An owner's standing: an owner never disabled nor moved has nothing stored (generation 0, enabled). */
export interface OwnerStanding {
  readonly generation: number;
  readonly disabled: boolean;
}

export interface ConsoleSessionStore {
  put(session: ConsoleSession): Promise<void>;
  find(sessionId: string): Promise<ConsoleSession | undefined>;
  delete(sessionId: string): Promise<void>;
  standing(owner: string): Promise<OwnerStanding>;
  /** Moves the owner's generation on (every session of theirs ends) and sets `disabled` when given; the standing after. */
  endOwnerSessions(owner: string, disabled?: boolean): Promise<OwnerStanding>;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A new session of `who`: the cookie's token (32 random bytes, base64url), of which only the hash is stored. */
export async function startSession(
  store: Pick<ConsoleSessionStore, 'put' | 'standing'>,
  who: Owner,
  now: number,
): Promise<{ token: string; session: ConsoleSession }> {
  const standing = await store.standing(who.owner);
  if (standing.disabled) throw new ApiError('unauthorized', 'This owner is disabled: an operator can enable them again.');
  const token = randomBytes(32).toString('base64url');
  const session = { ...who, sessionId: hashToken(token), generation: standing.generation, createdAt: now, expiresAt: now + SESSION_HOURS * 3_600_000 };
  await store.put(session);
  return { token, session };
}

/** The session a cookie's token stands for; every failure is the same 401 (signed out, expired, unknown, or its owner disabled or moved). */
export async function sessionOf(store: Pick<ConsoleSessionStore, 'find' | 'standing'>, token: string | undefined, now: number): Promise<ConsoleSession> {
  const refused = new ApiError('unauthorized', 'Sign in to the console first.');
  if (!token) throw refused;
  const session = await store.find(hashToken(token));
  // DynamoDB's TTL deletes expired items late: expiry is checked here.
  if (!session || session.expiresAt <= now) throw refused;
  const standing = await store.standing(session.owner);
  if (standing.disabled || standing.generation !== session.generation) throw refused;
  return session;
}

/** Sign-out: the session's item goes, and with it the session (a copy of the cookie included). */
export const endSession = (store: Pick<ConsoleSessionStore, 'delete'>, sessionId: string): Promise<void> => store.delete(sessionId);

/**
 * The authorizer's question for a console request: whose session is this, and may it pass now? The
 * same request token as an API key's request takes (DESIGN §11), from the same bucket of the account.
 */
export async function admitConsoleRequest(
  sessions: Pick<ConsoleSessionStore, 'find' | 'standing'>,
  accounts: Pick<AccountStore, 'getAccount'>,
  buckets: RequestBucketStore,
  token: string | undefined,
  clock: () => number,
): Promise<{ accountId: string; sessionId: string; verdict: RateVerdict }> {
  const session = await sessionOf(sessions, token, clock());
  const account = await requireAccount(accounts, session.accountId);
  const verdict = await takeRequestToken(buckets, account.accountId, requestRateOf(account), clock());
  return { accountId: account.accountId, sessionId: session.sessionId, verdict };
}
