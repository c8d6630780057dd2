import { builtInProviders } from '../domain/providers.js';
import { effectiveMaxObservations, limitsOf } from '../domain/accounts.js';
import type { Account, Page, ScannerRecord } from '../domain/ports.js';

/** Public shapes: fields are allowlisted here, so nothing internal leaks into a response. */
export const presentScanner = (scanner: ScannerRecord) => ({
  object: 'scanner' as const,
  scanner_id: scanner.scannerId,
  version: scanner.version,
  name: scanner.name,
  instructions: scanner.instructions,
  type: scanner.type,
  profile: scanner.profile ?? null,
  max_observations: scanner.max_observations ?? null,
  min_seconds: scanner.min_seconds ?? null,
  max_seconds: scanner.max_seconds ?? null,
  output: scanner.output ?? null,
  metadata: scanner.metadata ?? {},
  created_at: scanner.createdAt,
  updated_at: scanner.updatedAt,
});

export const presentList = <T, R>(page: Page<T>, present: (item: T) => R) => ({
  object: 'list' as const,
  data: page.items.map(present),
  next_cursor: page.nextCursor,
});

export function presentAccount(account: Account, deploymentMaxObservations: number) {
  const limits = limitsOf(account);
  return {
    object: 'account' as const,
    account_id: account.accountId,
    plan: account.plan,
    wallet: { balance_credits: account.creditsBalance, credit_unit_seconds: 60 },
    limits: {
      max_video_bytes: limits.maxVideoBytes,
      max_audio_bytes: limits.maxAudioBytes,
      max_source_minutes: limits.maxSourceMinutes,
      max_observations: effectiveMaxObservations(account, deploymentMaxObservations),
    },
    retention: { days: limits.retentionDays },
    concurrency: { limit: limits.concurrency, in_use: account.concurrencyInUse, queued: account.queuedRuns },
    built_in_providers: builtInProviders.map((p) => ({ id: p.id, kind: p.kind, hostnames: [...p.hostnames] })),
    trusted_hosts: account.trustedHosts,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}
