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
}

const common = { maxVideoBytes: 8 * GiB, maxAudioBytes: 2 * GiB, maxSourceMinutes: 120 };

export const plans: Record<PlanName, PlanLimits> = {
  beginner: { concurrency: 1, retentionDays: 7, ...common },
  hobby: { concurrency: 2, retentionDays: 30, ...common },
  creator: { concurrency: 3, retentionDays: 90, ...common },
  // Contracted: these defaults apply until the account item overrides them.
  enterprise: { concurrency: 10, retentionDays: 365, ...common },
};
