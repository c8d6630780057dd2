import { ApiError, notFound } from '../errors.js';
import { apiKeyPattern, apiKeyPrefix, generateApiKey, hashApiKey } from './api-keys.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { plans, type PlanLimits, type PlanName } from './plans.js';
import type { Account, ApiKeyRecord, LedgerEntry, RequestRate } from './model.js';
import type { AccountStore } from './ports.js';

export const limitsOf = (account: Account): PlanLimits => ({ ...plans[account.plan], ...account.limitOverrides });

/** The lower of the deployment cap and the account's own cap (SPEC: accounts may set lower). */
export const effectiveMaxObservations = (account: Account, deploymentCap: number): number => Math.min(deploymentCap, account.maxObservations ?? deploymentCap);

/** Resolves a Bearer header to its key's record; every failure is the same 401. */
export async function authenticate(store: Pick<AccountStore, 'findApiKey'>, authorization: string | undefined): Promise<ApiKeyRecord> {
  // The scheme name is case-insensitive (RFC 9110 §11.1).
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  const apiKey = match?.[1];
  if (!apiKey || !apiKeyPattern.test(apiKey)) throw unauthorized();
  const record = await store.findApiKey(hashApiKey(apiKey));
  if (!record || record.revokedAt) throw unauthorized();
  return record;
}

/** How fine a key's last use is recorded: one conditional write a minute per key at most, whatever its traffic. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/** Records a key's use when its recorded last use is a minute old or more (the write itself re-checks, so racing requests write once). */
export async function recordKeyUse(store: Pick<AccountStore, 'recordApiKeyUse'>, key: ApiKeyRecord, now: number): Promise<void> {
  const notAfter = now - KEY_USE_RESOLUTION_MS;
  if (key.lastUsedAt && Date.parse(key.lastUsedAt) > notAfter) return;
  await store.recordApiKeyUse(key.keyHash, new Date(now).toISOString(), new Date(notAfter).toISOString());
}

/** A named key's record for `apiKey`, as stored (only its hash and prefix). */
export function newKeyRecord(accountId: string, apiKey: string, name: string, createdAt: string): ApiKeyRecord {
  return { keyHash: hashApiKey(apiKey), accountId, keyId: newId('apiKey'), name, prefix: apiKeyPrefix(apiKey), createdAt, lastUsedAt: null, revokedAt: null };
}

/** The name a key made with its account (createAccount, the admin CLI, the local host's default account) gets. */
export const DEFAULT_KEY_NAME = 'default';

/** A new named key of the account; the key itself is returned this once and never stored. */
export async function createApiKey(store: Pick<AccountStore, 'addApiKey'>, accountId: string, name: string): Promise<{ key: ApiKeyRecord; apiKey: string }> {
  const apiKey = generateApiKey();
  const key = newKeyRecord(accountId, apiKey, name, nowIso());
  await store.addApiKey(key);
  return { key, apiKey };
}

/** Revokes one of the account's keys by id; another account's key is as unknown as none (404). */
export async function revokeApiKeyById(store: Pick<AccountStore, 'revokeApiKeyById'>, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const key = await store.revokeApiKeyById(accountId, keyId, nowIso());
  if (!key) throw notFound('API key');
  return key;
}

const unauthorized = (): ApiError => new ApiError('unauthorized', 'Send a valid API key as "Authorization: Bearer <key>".');

export async function requireAccount(store: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<Account> {
  const account = await store.getAccount(accountId);
  // A key whose account is gone is as good as revoked.
  if (!account) throw unauthorized();
  return account;
}

export interface NewAccount {
  plan: PlanName;
  credits: number;
  /** Use this key instead of generating one (the local host's LOCAL_API_KEY). */
  apiKey?: string | undefined;
  maxObservations?: number | undefined;
  /** A contracted request rate instead of the plan's. */
  requestRate?: RequestRate | undefined;
}

/** A request rate as the account item's overrides; whole numbers of at least 1. */
function requestRateOverrides(rate: RequestRate): Partial<PlanLimits> {
  for (const [name, value] of Object.entries(rate)) {
    if (!Number.isInteger(value) || value < 1)
      throw new ApiError('validation_failed', `The request rate's ${name} must be a whole number of at least 1.`, name);
  }
  return { requestsPerSecond: rate.perSecond, requestBurst: rate.burst };
}

export async function createAccount(store: AccountStore, input: NewAccount): Promise<{ account: Account; apiKey: string }> {
  const apiKey = input.apiKey ?? generateApiKey();
  if (!apiKeyPattern.test(apiKey)) throw new ApiError('validation_failed', 'API keys look like sk_live_ or sk_test_ plus 40 base62 characters.', 'api_key');
  const now = nowIso();
  const account: Account = {
    accountId: newId('account'),
    plan: input.plan,
    creditsBalance: input.credits,
    limitOverrides: input.requestRate ? requestRateOverrides(input.requestRate) : {},
    maxObservations: input.maxObservations ?? null,
    trustedHosts: [],
    concurrencyInUse: 0,
    createdAt: now,
    updatedAt: now,
  };
  const opening: LedgerEntry = { entryId: newId('ledger'), credits: input.credits, reason: 'account_opened', createdAt: now };
  await store.createAccount(account, newKeyRecord(account.accountId, apiKey, DEFAULT_KEY_NAME, now), opening);
  return { account, apiKey };
}

/** The operator's contracted request rate of an account (admin CLI); the plan's applies until then. */
export async function setRequestRate(store: AccountStore, accountId: string, rate: RequestRate): Promise<void> {
  if (!(await store.setLimitOverrides(accountId, requestRateOverrides(rate)))) throw notFound('account');
}

export async function revokeApiKey(store: AccountStore, apiKey: string): Promise<void> {
  if (!(await store.revokeApiKey(hashApiKey(apiKey), nowIso()))) throw notFound('API key');
}

export async function addCredits(store: AccountStore, accountId: string, credits: number): Promise<number> {
  if (!Number.isInteger(credits) || credits <= 0) throw new ApiError('validation_failed', 'Credits must be a positive integer.', 'credits');
  if (!(await store.getAccount(accountId))) throw notFound('account');
  return store.addCredits(accountId, { entryId: newId('ledger'), credits, reason: 'credits_added', createdAt: nowIso() });
}

/** Exact public DNS names only (SPEC: "exact trusted custom hostname"); never an IP literal. */
const hostnamePattern = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.[a-z]{2,63}$/;

/** Loopback names as URL.hostname spells them: what a local host may trust with LOCAL_ALLOW_LOOPBACK_TARGETS=1. */
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Adds an exact trusted source host. Loopback names only for a local host that may reach loopback
 * targets (DESIGN §9), so tests and demos can serve media from this machine.
 */
export async function trustHost(store: AccountStore, accountId: string, hostname: string, options: { allowLoopback?: boolean } = {}): Promise<string[]> {
  let host = hostname.trim().toLowerCase();
  if (host === '::1') host = '[::1]';
  const loopback = loopbackHosts.has(host);
  if (loopback && !options.allowLoopback) {
    throw new ApiError(
      'validation_failed',
      `"${hostname}" is a loopback name: only a local host started with LOCAL_ALLOW_LOOPBACK_TARGETS=1 may trust it.`,
      'hostname',
    );
  }
  if (!loopback && (!hostnamePattern.test(host) || host === 'localhost' || host.endsWith('.localhost'))) {
    throw new ApiError('validation_failed', `"${hostname}" is not an exact public DNS hostname.`, 'hostname');
  }
  if (!(await store.getAccount(accountId))) throw notFound('account');
  return store.addTrustedHost(accountId, host);
}

/** The operator's per-account switch of event delivery (SPEC Events); the deployment has its own (EVENT_DELIVERY_ENABLED). */
export async function setEventDelivery(store: AccountStore, accountId: string, enabled: boolean): Promise<void> {
  if (!(await store.setEventDelivery(accountId, enabled))) throw notFound('account');
}
