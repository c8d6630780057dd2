/**
 * Plan limits (SPEC Limits). GET /v1/account reports them; later capabilities enforce them.
 * Enterprise limits are contracted, so an account may override any of them.
 */
export const planNames = ['beginner', 'hobby', 'creator', 'enterprise'] as const;
export type PlanName = (typeof planNames)[number];

const GiB = 1024 ** 3;

export interface PlanLimits {
  concurrency: number;
  retentionDays: number;
  maxVideoBytes: number;
  maxAudioBytes: number;
  maxSourceMinutes: number;
  /** API requests per second the account's bucket refills (functions/domain/accounts/request-limits.ts). */
  requestsPerSecond: number;
  /** API requests the bucket holds: how many may arrive at once after a quiet spell. */
  requestBurst: number;
}

const common = { maxVideoBytes: 8 * GiB, maxAudioBytes: 2 * GiB, maxSourceMinutes: 120 };

export const plans: Record<PlanName, PlanLimits> = {
  // Request rates: polling every run at SPEC's 5-10 s stays far below them; the stage's own
  // throttle (infra, 100 rps by default) is shared by every account, so no plan may take it all.
  beginner: { concurrency: 1, retentionDays: 7, requestsPerSecond: 5, requestBurst: 25, ...common },
  hobby: { concurrency: 2, retentionDays: 30, requestsPerSecond: 10, requestBurst: 50, ...common },
  creator: { concurrency: 3, retentionDays: 90, requestsPerSecond: 20, requestBurst: 100, ...common },
  // Contracted: these defaults apply until the account item overrides them.
  enterprise: { concurrency: 10, retentionDays: 365, requestsPerSecond: 50, requestBurst: 250, ...common },
};
