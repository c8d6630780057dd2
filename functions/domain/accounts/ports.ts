/** What accounts need from storage (implemented in functions/adapters). */
import type { PlanLimits } from './plans.js';
import type { Page, PageRequest } from '../pages.js';
import type { Account, ApiKeyRecord, LedgerEntry } from './model.js';

export interface AccountStore {
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getAccount(accountId: string): Promise<Account | undefined>;
  /** Writes the account, its first key and the opening ledger entry atomically. */
  createAccount(account: Account, key: ApiKeyRecord, opening: LedgerEntry): Promise<void>;
  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** false when no such key exists. */
  revokeApiKey(keyHash: string, revokedAt: string): Promise<boolean>;
  /** The account's named keys, newest first. */
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Revokes the account's key `keyId` (once: a revoked key keeps its time); undefined when the account has no such key. */
  revokeApiKeyById(accountId: string, keyId: string, revokedAt: string): Promise<ApiKeyRecord | undefined>;
  /** Sets the key's last use to `at` unless it was recorded after `notAfter`: a conditional write, at most one a minute. */
  recordApiKeyUse(keyHash: string, at: string, notAfter: string): Promise<void>;
  /** The account's ledger, newest first. */
  listLedger(accountId: string, page: PageRequest): Promise<Page<LedgerEntry>>;
  /** Balance change and ledger entry in one transaction; returns the new balance. */
  addCredits(accountId: string, entry: LedgerEntry): Promise<number>;
  addTrustedHost(accountId: string, hostname: string): Promise<string[]>;
  /** Switches event delivery on or off for the account; false when there is no such account. */
  setEventDelivery(accountId: string, enabled: boolean): Promise<boolean>;
  /** Sets these contracted limits, keeping the account's other overrides; false when there is no such account. */
  setLimitOverrides(accountId: string, overrides: Partial<PlanLimits>): Promise<boolean>;
}
