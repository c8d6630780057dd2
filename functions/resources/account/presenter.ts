import { builtInProviders } from '../../domain/sources/providers.js';
import { PROOF_MAX_WINDOW_MS } from '../../domain/analyses/limits.js';
import { effectiveMaxObservations, limitsOf } from '../../domain/accounts/accounts.js';
import { eventDeliveryEnabled } from '../../domain/webhooks/availability.js';
import type { Account } from '../../domain/accounts/model.js';
import type { AccountResource } from './response.js';

/** `waitingRuns`: the account's runs queued for a concurrency slot; `deploymentEventDelivery`: EVENT_DELIVERY_ENABLED. */
export function presentAccount(account: Account, deploymentMaxObservations: number, waitingRuns: number, deploymentEventDelivery: boolean): AccountResource {
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
    concurrency: { limit: limits.concurrency, in_use: account.concurrencyInUse, queued: waitingRuns },
    // SPEC Limits: one proof analysis (window <= 7,200 s) per paid account.
    proof_allowance: { analysis_available: !account.proofAnalysisId, max_window_seconds: PROOF_MAX_WINDOW_MS / 1000 },
    built_in_providers: builtInProviders.map((p) => ({ id: p.id, name: p.name, kind: p.kind })),
    trusted_hosts: account.trustedHosts,
    event_delivery: { available: eventDeliveryEnabled(deploymentEventDelivery, account) },
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}
