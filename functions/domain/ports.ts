/**
 * Ports: what the domain needs from storage. Adapters (functions/adapters) implement them with
 * AWS SDK clients handed in by the caller; tests implement them with DynamoDB Local or mocks.
 */
import type { PlanName, PlanLimits } from './plans.js';
import type { ScannerDefinition } from '../schemas/scanner.js';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Account {
  accountId: string;
  plan: PlanName;
  creditsBalance: number;
  /** Contracted overrides of the plan's limits (enterprise). */
  limitOverrides: Partial<PlanLimits>;
  /** Per-account cap on observations per run, below the deployment cap. */
  maxObservations: number | null;
  trustedHosts: string[];
  concurrencyInUse: number;
  queuedRuns: number;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  keyHash: string;
  accountId: string;
  revoked: boolean;
  createdAt: string;
}

export interface LedgerEntry {
  entryId: string;
  credits: number;
  reason: string;
  createdAt: string;
}

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
}

export interface ScannerRecord extends ScannerDefinition {
  scannerId: string;
  version: number;
  /** When the scanner (version 1) was created. */
  createdAt: string;
  /** When this version was created. */
  updatedAt: string;
}

export interface ScannerStore {
  /** Writes the head and the version-1 snapshot atomically. */
  create(accountId: string, scanner: ScannerRecord): Promise<void>;
  get(accountId: string, scannerId: string): Promise<ScannerRecord | undefined>;
  getVersion(accountId: string, scannerId: string, version: number): Promise<ScannerRecord | undefined>;
  /**
   * Writes snapshot `next.version` and moves the head, only if the head is still at
   * `next.version - 1`; returns false when another update won the race.
   */
  putNextVersion(accountId: string, next: ScannerRecord): Promise<boolean>;
  list(accountId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
  listVersions(accountId: string, scannerId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
}
