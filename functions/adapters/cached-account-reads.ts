import type { AccountStore } from '../domain/accounts/ports.js';
import { KEY_USE_RESOLUTION_MS } from '../domain/accounts/accounts.js';
import type { ConsoleSessionStore } from '../domain/console/sessions.js';

/** What a request's authorizer reads (the key, then its account's plan, for the request limit) and the key's use it records. */
type AccountReads = Pick<AccountStore, 'findApiKey' | 'getAccount' | 'recordApiKeyUse'>;

/** Entries kept at most per read; past it the oldest goes first, so a flood of unknown keys cannot grow memory. */
const MAX_ENTRIES = 10_000;

/** `read`, answered from memory for `ttlMs` after each table read (misses included). */
function ttlCache<T>(read: (key: string) => Promise<T>, ttlMs: number, now: () => number): (key: string) => Promise<T> {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return async (key) => {
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.value;
    const value = await read(key);
    entries.delete(key);
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { value, expiresAt: now() + ttlMs });
    return value;
  };
}

/**
 * A per-process cache of the authorizer's reads, so a warm authorizer answers without a table
 * read. Unknown and revoked keys are cached too (a flood of bad keys costs no reads either); every
 * answer is at most `ttlMs` old, so a revocation (or a plan change) takes effect within that time.
 * `ttlMs` 0: no cache.
 */
export function cachedAccountReads(store: AccountReads, ttlMs: number, now: () => number = Date.now): AccountReads {
  if (ttlMs <= 0) return store;
  return {
    findApiKey: ttlCache((keyHash) => store.findApiKey(keyHash), ttlMs, now),
    getAccount: ttlCache((accountId) => store.getAccount(accountId), ttlMs, now),
    recordApiKeyUse: oncePerResolution(store, now),
  };
}

/**
 * A cached key shows the last use it was read with, so every request would try the (refused)
 * conditional write until the entry expires: this process tries once a resolution per key instead.
 */
function oncePerResolution(store: AccountReads, now: () => number): AccountReads['recordApiKeyUse'] {
  const tried = new Map<string, number>();
  return async (keyHash, at, notAfter) => {
    const last = tried.get(keyHash);
    if (last !== undefined && now() - last < KEY_USE_RESOLUTION_MS) return;
    tried.delete(keyHash);
    if (tried.size >= MAX_ENTRIES) tried.delete(tried.keys().next().value!);
    tried.set(keyHash, now());
    await store.recordApiKeyUse(keyHash, at, notAfter);
  };
}

/**
 * The same cache for the authorizer's console-session reads (the session, its owner's standing): a
 * sign-out, or a disabled or moved owner, ends the session within `ttlMs`. `ttlMs` 0: no cache.
 */
export function cachedConsoleSessionReads(
  store: Pick<ConsoleSessionStore, 'find' | 'standing'>,
  ttlMs: number,
  // Read at each call, not bound once: the clock of the moment (a test's fake one too).
  now: () => number = () => Date.now(),
): Pick<ConsoleSessionStore, 'find' | 'standing'> {
  if (ttlMs <= 0) return store;
  return { find: ttlCache((sessionId) => store.find(sessionId), ttlMs, now), standing: ttlCache((owner) => store.standing(owner), ttlMs, now) };
}
