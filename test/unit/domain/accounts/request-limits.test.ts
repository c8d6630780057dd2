import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';
import {
  admitRequest,
  admitted,
  refused,
  takeRequestToken,
  type BucketMove,
  type RequestBucketStore,
} from '../../../../functions/domain/accounts/request-limits.js';
import { type RequestRate } from '../../../../functions/domain/accounts/model.js';

/** The table's two conditional updates (request-bucket-store.ts), in memory, counting writes. */
function memoryBuckets() {
  const tats = new Map<string, number>();
  let writes = 0;
  const store: RequestBucketStore = {
    advance(accountId, interval, now, latest): Promise<BucketMove> {
      writes++;
      const stored = tats.get(accountId);
      if (stored === undefined || stored < now || stored > latest) return Promise.resolve({ moved: false, stored });
      tats.set(accountId, stored + interval);
      return Promise.resolve({ moved: true, tat: stored + interval });
    },
    restart(accountId, tat, now): Promise<BucketMove> {
      writes++;
      const stored = tats.get(accountId);
      if (stored !== undefined && stored >= now) return Promise.resolve({ moved: false, stored });
      tats.set(accountId, tat);
      return Promise.resolve({ moved: true, tat });
    },
  };
  return { store, tats, writes: () => writes };
}

const rate: RequestRate = { perSecond: 10, burst: 5 };
const T0 = 1_800_000_000_000;

describe('takeRequestToken', () => {
  it('admits a burst of `burst` requests at once, counting down, then refuses with the wait for one token', async () => {
    const { store } = memoryBuckets();
    const verdicts = [];
    for (let i = 0; i < 6; i++) verdicts.push(await takeRequestToken(store, 'a', rate, T0));
    expect(verdicts.map((v) => [v.allowed, v.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // Five tokens of 100 ms taken: the bucket is full again 500 ms later; one token is back after 100 ms.
    expect(verdicts[4]).toEqual({ allowed: true, limit: 5, remaining: 0, resetAt: Math.ceil((T0 + 500) / 1000), retryAfter: 0 });
    expect(verdicts[5]).toEqual({ allowed: false, limit: 5, remaining: 0, resetAt: Math.ceil((T0 + 500) / 1000), retryAfter: 1 });
  });

  it('refills at the rate: one token per interval', async () => {
    const { store } = memoryBuckets();
    for (let i = 0; i < 5; i++) await takeRequestToken(store, 'a', rate, T0);
    expect((await takeRequestToken(store, 'a', rate, T0 + 99)).allowed).toBe(false);
    const after = await takeRequestToken(store, 'a', rate, T0 + 100);
    expect(after).toMatchObject({ allowed: true, remaining: 0 });
    expect(await takeRequestToken(store, 'a', rate, T0 + 350)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('starts full again after a quiet spell, whatever the stored time', async () => {
    const { store } = memoryBuckets();
    for (let i = 0; i < 5; i++) await takeRequestToken(store, 'a', rate, T0);
    expect(await takeRequestToken(store, 'a', rate, T0 + 60_000)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('keeps accounts apart', async () => {
    const { store } = memoryBuckets();
    for (let i = 0; i < 6; i++) await takeRequestToken(store, 'a', rate, T0);
    expect(await takeRequestToken(store, 'b', rate, T0)).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('costs one write per request within the rate, two within a burst, one per refusal', async () => {
    const { store, writes } = memoryBuckets();
    await takeRequestToken(store, 'a', rate, T0);
    expect(writes()).toBe(1);
    await takeRequestToken(store, 'a', rate, T0 + 150);
    expect(writes()).toBe(2);
    await takeRequestToken(store, 'a', rate, T0 + 150);
    expect(writes()).toBe(4);
    for (let i = 0; i < 3; i++) await takeRequestToken(store, 'a', rate, T0);
    const before = writes();
    expect((await takeRequestToken(store, 'a', rate, T0)).allowed).toBe(false);
    expect(writes() - before).toBe(1);
  });

  it('answers Retry-After in whole seconds, at least 1, for slow rates', async () => {
    const slow: RequestRate = { perSecond: 1, burst: 2 };
    const { store } = memoryBuckets();
    await takeRequestToken(store, 'a', slow, T0);
    await takeRequestToken(store, 'a', slow, T0);
    expect(await takeRequestToken(store, 'a', slow, T0 + 10)).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(refused(slow, T0 + 4_000, T0)).toMatchObject({ retryAfter: 3 });
    expect(admitted(slow, T0 + 1_000, T0)).toMatchObject({ remaining: 1, resetAt: Math.ceil((T0 + 1_000) / 1000) });
  });

  it('refuses when every move loses a race to the same account (no endless retries)', async () => {
    let calls = 0;
    // Another request always moved the time first: each refused move reports a time that still fits.
    const racing: RequestBucketStore = {
      advance: () => (calls++, Promise.resolve({ moved: false, stored: T0 + 100 })),
      restart: () => (calls++, Promise.resolve({ moved: false, stored: T0 + 100 })),
    };
    expect(await takeRequestToken(racing, 'a', rate, T0)).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(calls).toBe(4);
  });

  it('never admits more than burst + rate x elapsed in any span (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ perSecond: fc.constantFrom(1, 2, 5, 10, 20, 50), burst: fc.integer({ min: 1, max: 20 }) }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 120 }),
        async (limits, gaps) => {
          const { store } = memoryBuckets();
          let now = T0;
          const admittedAt: number[] = [];
          for (const gap of gaps) {
            now += gap;
            const verdict = await takeRequestToken(store, 'a', limits, now);
            if (verdict.allowed) admittedAt.push(now);
            expect(verdict.remaining).toBeGreaterThanOrEqual(0);
            expect(verdict.remaining).toBeLessThan(limits.burst);
          }
          for (let i = 0; i < admittedAt.length; i++) {
            for (let j = i; j < admittedAt.length; j++) {
              const elapsed = admittedAt[j]! - admittedAt[i]!;
              expect(j - i + 1).toBeLessThanOrEqual(limits.burst + Math.floor((elapsed * limits.perSecond) / 1000 + 1e-9));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('admitRequest', () => {
  const apiKey = `sk_live_${'aB3'.repeat(13)}x`;
  const account = testAccount({ limitOverrides: { requestsPerSecond: rate.perSecond, requestBurst: rate.burst } });

  it('judges a request by the time its token is taken, not the time it arrived', async () => {
    const { store } = memoryBuckets();
    let now = T0;
    // Its key lookup takes a second (a cold start, a busy table), and in that second four requests
    // that arrived after it take their tokens: one is left for it.
    const slowReads = {
      findApiKey: async (keyHash: string) => {
        now = T0 + 1_000;
        for (let i = 0; i < 4; i++) await takeRequestToken(store, ACCOUNT_ID, rate, now);
        return keyHash === createHash('sha256').update(apiKey).digest('hex')
          ? { keyHash, accountId: ACCOUNT_ID, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null, revokedAt: null }
          : undefined;
      },
      getAccount: () => Promise.resolve(account),
      recordApiKeyUse: () => Promise.resolve(),
    };
    const { verdict } = await admitRequest(slowReads, store, `Bearer ${apiKey}`, () => now);
    expect(verdict).toMatchObject({ allowed: true, remaining: 0 });
  });
});
