import type { PlanName, PlanLimits } from './plans.js';

export interface Account {
  accountId: string;
  plan: PlanName;
  creditsBalance: number;
  /** Contracted overrides of the plan's limits (enterprise). */
  limitOverrides: Partial<PlanLimits>;
  /** Per-account cap on observations per run, below the deployment cap. */
  maxObservations: number | null;
  trustedHosts: string[];
  /** Concurrency slots held by the account's runs (DESIGN §6). */
  concurrencyInUse: number;
  /** The one-off analysis that claimed the account's proof allowance (SPEC Limits); absent while it is available. */
  proofAnalysisId?: string;
  /** An operator switched event delivery off for this account (admin CLI); absent: on (SPEC Events). */
  eventDeliveryDisabled?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  keyHash: string;
  accountId: string;
  /** Absent on keys made before keys had names: they authenticate, but no list shows them. */
  keyId?: string;
  name?: string;
  /** The key's first characters: enough to tell keys apart, never enough to use one. */
  prefix?: string;
  createdAt: string;
  /** Recorded at most once a minute (functions/domain/accounts/accounts.ts KEY_USE_RESOLUTION_MS). */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface LedgerEntry {
  entryId: string;
  credits: number;
  reason: string;
  createdAt: string;
}

/** An account's API request rate: a token bucket. */
export interface RequestRate {
  /** Tokens the bucket regains per second. */
  perSecond: number;
  /** Tokens the bucket holds. */
  burst: number;
}
