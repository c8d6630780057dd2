/** What accounts need from storage (implemented in functions/adapters). */
import type { PlanLimits } from './plans.js';
import type { Account, ApiKeyRecord, LedgerEntry } from './model.js';

export interface AccountStore {
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getAccount(accountId: string): Promise<Account | undefined>;
  /** Writes the account, its first key and the opening ledger entry atomically. */
  createAccount(account: Account, key: ApiKeyRecord, opening: LedgerEntry): Promise<void>;
  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** false when no such key exists. */
  revokeApiKey(keyHash: string): Promise<boolean>;
  /** Balance change and ledger entry in one transaction; returns the new balance. */
  addCredits(accountId: string, entry: LedgerEntry): Promise<number>;
  addTrustedHost(accountId: string, hostname: string): Promise<string[]>;
  /** Switches event delivery on or off for the account; false when there is no such account. */
  setEventDelivery(accountId: string, enabled: boolean): Promise<boolean>;
  /** Sets these contracted limits, keeping the account's other overrides; false when there is no such account. */
  setLimitOverrides(accountId: string, overrides: Partial<PlanLimits>): Promise<boolean>;
}
