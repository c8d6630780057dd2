import * as z from '../../shared/zod.js';
import { planNames } from '../../domain/accounts/plans.js';
import { count, id, timestamp } from '../common/response.js';

export const accountSchema = z.object({
  object: z.literal('account'),
  account_id: id('account'),
  plan: z.enum(planNames),
  wallet: z.object({
    balance_credits: z.int().check(z.describe('1 credit per analysed minute, rounded up per run.')),
    credit_unit_seconds: z.literal(60),
  }),
  limits: z.object({
    max_video_bytes: count,
    max_audio_bytes: count,
    max_source_minutes: count,
    max_observations: z.int().check(z.minimum(1), z.describe('Effective cap on observations per run for this account.')),
  }),
  retention: z.object({ days: z.int().check(z.minimum(1)) }),
  concurrency: z.object({
    limit: z.int().check(z.minimum(1)),
    in_use: count,
    queued: count.check(z.describe("The account's runs waiting for a slot.")),
  }),
  proof_allowance: z.object({ analysis_available: z.boolean(), max_window_seconds: z.number() }),
  built_in_providers: z.array(z.object({ id: z.string(), name: z.string(), kind: z.enum(['recorded_video', 'social', 'meeting', 'storage']) })),
  trusted_hosts: z.array(z.string()).check(z.describe('Exact hostnames whose HTTPS media URLs one-off analyses accept.')),
  event_delivery: z
    .object({ available: z.boolean() })
    .check(z.describe('Whether webhook endpoints can be created and events are delivered to them; when not (off for the deployment or the account), poll.')),
  created_at: timestamp,
  updated_at: timestamp,
});
export type AccountResource = z.infer<typeof accountSchema>;
