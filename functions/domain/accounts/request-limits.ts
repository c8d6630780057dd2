/**
 * Per-account request limits (DESIGN §11): a token bucket per account, kept as one number, the
 * "theoretical arrival time" of GCRA (the generic cell rate algorithm, a token bucket's exact
 * equivalent). A full bucket is a time at or before now; each request moves it one interval
 * (1 s / rate) later; a request is refused when that would put it more than `burst` intervals
 * ahead of now. One number instead of (tokens, last refill) lets the table move it with a single
 * conditional `SET tat = tat + :interval` (DynamoDB update expressions add but cannot multiply
 * or take a minimum, which refilling a token count needs), so a request costs one write.
 */
import { authenticate, limitsOf, recordKeyUse, requireAccount } from './accounts.js';
import type { Account, RequestRate } from './model.js';
import type { AccountStore } from './ports.js';

/** What a request is told (the X-RateLimit-* and Retry-After headers). */
export interface RateVerdict {
  allowed: boolean;
  /** The bucket's size. */
  limit: number;
  /** Requests that may follow at once. */
  remaining: number;
  /** Unix time (s) at which the bucket is full again. */
  resetAt: number;
  /** Refused only: seconds until one request is admitted again (at least 1). */
  retryAfter: number;
}

/** How the table moves an account's arrival time; each move is one conditional write. */
export interface RequestBucketStore {
  /**
   * Adds `interval` to the stored time when it lies within [now, latest]. Refused: the stored
   * time as it is (undefined: none stored).
   */
  advance(accountId: string, interval: number, now: number, latest: number): Promise<BucketMove>;
  /** Stores `tat` when no time is stored or the stored one is before `now` (a full bucket). */
  restart(accountId: string, tat: number, now: number): Promise<BucketMove>;
}

export type BucketMove = { moved: true; tat: number } | { moved: false; stored: number | undefined };

/** Milliseconds one token takes to come back. */
const intervalOf = (rate: RequestRate): number => 1000 / rate.perSecond;

/** The latest arrival time a request may leave behind at `now`: `burst` intervals ahead. */
const latestOf = (rate: RequestRate, now: number): number => now + rate.burst * intervalOf(rate);

/** Whole tokens left when the arrival time is `tat` (a hair of float error never costs a token). */
const tokensAt = (rate: RequestRate, tat: number, now: number): number =>
  Math.max(0, Math.floor((latestOf(rate, now) - Math.max(tat, now)) / intervalOf(rate) + 1e-9));

/** The answer to an admitted request that left the arrival time at `tat`. */
export function admitted(rate: RequestRate, tat: number, now: number): RateVerdict {
  return { allowed: true, limit: rate.burst, remaining: tokensAt(rate, tat, now), resetAt: Math.ceil(tat / 1000), retryAfter: 0 };
}

/** The answer to a refused request, the stored arrival time being `tat`. */
export function refused(rate: RequestRate, tat: number, now: number): RateVerdict {
  // One token is back when the time, moved one interval, fits under the latest again.
  const waitMs = tat + intervalOf(rate) - latestOf(rate, now);
  return { allowed: false, limit: rate.burst, remaining: 0, resetAt: Math.ceil(tat / 1000), retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Moves (or restarts) an account's bucket; a lost race re-reads the answer it got and decides again. */
const MAX_MOVES = 4;

/**
 * Takes one token from the account's bucket at `now` (ms). The first move assumes a bucket whose
 * time has passed (most requests: a client polling, or within its rate), so those cost one write;
 * a request within a burst costs a second. `now` stays the same across moves: a request that lost
 * a race to a restart then finds the winner's time at or after its own `now` and advances it, where
 * a fresh clock would send all the losers to restart again against each other.
 */
export async function takeRequestToken(store: RequestBucketStore, accountId: string, rate: RequestRate, now: number): Promise<RateVerdict> {
  const interval = intervalOf(rate);
  const latest = latestOf(rate, now) - interval;
  let known: { stored: number | undefined } | undefined;
  for (let move = 0; move < MAX_MOVES; move++) {
    const stored = known?.stored;
    if (known && stored !== undefined && stored > latest) return refused(rate, stored, now);
    const result =
      !known || stored === undefined || stored < now
        ? await store.restart(accountId, now + interval, now)
        : await store.advance(accountId, interval, now, latest);
    if (result.moved) return admitted(rate, result.tat, now);
    known = { stored: result.stored };
  }
  // Every move lost to another request of the same account: it is as busy as a bucket gets.
  return refused(rate, latestOf(rate, now), now);
}

/** The account's bucket: its plan's, or its contracted override (limitsOf). */
export function requestRateOf(account: Account): RequestRate {
  const limits = limitsOf(account);
  return { perSecond: limits.requestsPerSecond, burst: limits.requestBurst };
}

/**
 * The authorizer's question: whose request is this, and may it pass now? Every failure to
 * authenticate is the same 401 (authenticate); an authenticated request always takes a token.
 */
export async function admitRequest(
  reads: Pick<AccountStore, 'findApiKey' | 'getAccount' | 'recordApiKeyUse'>,
  buckets: RequestBucketStore,
  authorization: string | undefined,
  clock: () => number,
): Promise<{ accountId: string; verdict: RateVerdict }> {
  const key = await authenticate(reads, authorization);
  const { accountId } = key;
  const account = await requireAccount(reads, accountId);
  // The clock is read once the key is known, not at arrival: a request whose lookup was slow (a
  // cold start, a busy table) is judged against the moves made meanwhile by requests that
  // overtook it, which were judged against later times; at its arrival time it would find them
  // ahead of its own latest and be refused with tokens left.
  const now = clock();
  const [verdict] = await Promise.all([takeRequestToken(buckets, accountId, requestRateOf(account), now), recordKeyUse(reads, key, now)]);
  return { accountId, verdict };
}
