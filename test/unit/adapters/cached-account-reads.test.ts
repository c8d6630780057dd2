import { describe, expect, it } from 'vitest';
import { cachedAccountReads } from '../../../functions/adapters/cached-account-reads.js';
import type { ApiKeyRecord } from '../../../functions/domain/accounts/model.js';
import { testAccount } from '../../helpers/unit-fixtures.js';

const record = (revoked: boolean): ApiKeyRecord => ({
  keyHash: 'h1',
  accountId: 'acct_1',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUsedAt: null,
  revokedAt: revoked ? '2026-01-02T00:00:00.000Z' : null,
});

/** A table stand-in that counts reads and whose answers the test changes. */
function table() {
  const keys = new Map<string, ApiKeyRecord>([['h1', record(false)]]);
  let reads = 0;
  const uses: string[] = [];
  return {
    keys,
    uses,
    reads: () => reads,
    recordApiKeyUse: (hash: string) => (uses.push(hash), Promise.resolve()),
    findApiKey: (hash: string) => (reads++, Promise.resolve(keys.get(hash))),
    getAccount: (accountId: string) => (reads++, Promise.resolve(accountId === 'acct_1' ? testAccount({ accountId }) : undefined)),
  };
}

describe('cachedAccountReads', () => {
  it('answers a warm key without a table read until the TTL passes, so a revocation shows within it', async () => {
    let now = 0;
    const store = table();
    const cached = cachedAccountReads(store, 60_000, () => now);
    expect(await cached.findApiKey('h1')).toEqual(record(false));
    store.keys.set('h1', record(true));
    now = 59_999;
    expect((await cached.findApiKey('h1'))?.revokedAt).toBeNull();
    expect(store.reads()).toBe(1);
    now = 60_000;
    expect((await cached.findApiKey('h1'))?.revokedAt).not.toBeNull();
    expect(store.reads()).toBe(2);
  });

  it('caches unknown keys too, so a flood of bad keys costs no reads', async () => {
    const store = table();
    const cached = cachedAccountReads(store, 60_000, () => 0);
    for (let i = 0; i < 5; i++) expect(await cached.findApiKey('nope')).toBeUndefined();
    expect(store.reads()).toBe(1);
  });

  it('keeps at most 10,000 entries, dropping the oldest', async () => {
    const store = table();
    const cached = cachedAccountReads(store, 60_000, () => 0);
    for (let i = 0; i <= 10_000; i++) await cached.findApiKey(`k${i}`);
    const before = store.reads();
    await cached.findApiKey('k10000');
    await cached.findApiKey('k1');
    expect(store.reads() - before).toBe(0);
    await cached.findApiKey('k0');
    expect(store.reads() - before).toBe(1);
  });

  it('caches account reads (the plan behind the request limit) the same way', async () => {
    let now = 0;
    const store = table();
    const cached = cachedAccountReads(store, 5_000, () => now);
    await cached.getAccount('acct_1');
    now = 4_999;
    await cached.getAccount('acct_1');
    expect(store.reads()).toBe(1);
    now = 5_000;
    await cached.getAccount('acct_1');
    expect(store.reads()).toBe(2);
  });

  it('with a TTL of 0 reads the table every time', async () => {
    const store = table();
    const cached = cachedAccountReads(store, 0);
    await cached.findApiKey('h1');
    await cached.findApiKey('h1');
    expect(store.reads()).toBe(2);
  });

  it("tries to record a key's use at most once a minute per key, whatever the cached record says", async () => {
    let now = 0;
    const store = table();
    const cached = cachedAccountReads(store, 60_000, () => now);
    await cached.recordApiKeyUse('h1', 'at', 'before');
    now = 59_999;
    await cached.recordApiKeyUse('h1', 'at', 'before');
    await cached.recordApiKeyUse('h2', 'at', 'before');
    expect(store.uses).toEqual(['h1', 'h2']);
    now = 60_000;
    await cached.recordApiKeyUse('h1', 'at', 'before');
    expect(store.uses).toEqual(['h1', 'h2', 'h1']);
  });
});
