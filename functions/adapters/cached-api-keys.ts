import type { AccountStore, ApiKeyRecord } from '../domain/ports.js';

type KeyLookup = Pick<AccountStore, 'findApiKey'>;

/** Entries kept at most; past it the oldest goes first, so a flood of unknown keys cannot grow memory. */
const MAX_ENTRIES = 10_000;

/**
 * A per-process cache of API key lookups, so a warm authorizer answers without a table read.
 * Unknown and revoked keys are cached too (a flood of bad keys costs no reads either); every
 * answer is at most `ttlMs` old, so a revocation takes effect within that time. `ttlMs` 0: no cache.
 */
export function cachedApiKeys(lookup: KeyLookup, ttlMs: number, now: () => number = Date.now): KeyLookup {
  if (ttlMs <= 0) return lookup;
  const entries = new Map<string, { record: ApiKeyRecord | undefined; expiresAt: number }>();
  return {
    async findApiKey(keyHash) {
      const cached = entries.get(keyHash);
      if (cached && cached.expiresAt > now()) return cached.record;
      const record = await lookup.findApiKey(keyHash);
      entries.delete(keyHash);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(keyHash, { record, expiresAt: now() + ttlMs });
      return record;
    },
  };
}
