import * as z from '../../shared/zod.js';
import { chatMomentTypes } from '../../domain/engine/moment-brief.js';
import { analysisKinds, analysisStatuses, billingStates, runStatuses, speechCleanups } from '../../domain/runs/model.js';
import { profiles } from '../../domain/scanners/model.js';
import { count, id, mediaKind, milliseconds, terminalErrorSchema, timestamp, windowSchema } from '../common/response.js';

export const momentSchema = z.object({
  object: z.literal('moment'),
  id: id('moment'),
  start_ms: milliseconds,
  end_ms: milliseconds,
  duration_ms: milliseconds,
  score: z.number().check(z.describe('Ranking value.')),
  title: z.string(),
  event_type: z.string(),
  transcript_excerpt: z.string(),
  edit: z.object({
    mode: z.enum(['continuous', 'subclips']),
    subclips: z.array(z.object({ start_ms: milliseconds, end_ms: milliseconds })).check(z.describe('The parts kept when speech_cleanup is tight.')),
  }),
  run_id: z.nullable(id('run')).check(z.describe('Null for one-off analyses.')),
  observation_id: z.nullable(id('observation')),
});
export type MomentResource = z.infer<typeof momentSchema>;

export const momentListSchema = z.object({
  object: z.literal('moment_list'),
  analysis_id: id('analysis'),
  count,
  moments: z.array(momentSchema).check(z.describe('Ranked, best first; zero moments is a valid answer.')),
});
export type MomentListResource = z.infer<typeof momentListSchema>;

export const analysisProgressSchema = z.object({
  object: z.literal('analysis_progress'),
  analysis_id: id('analysis'),
  run_id: z.nullable(id('run')).check(z.describe('Null for one-off analyses.')),
  status: z.enum(runStatuses),
  queue_position: z.nullable(z.int().check(z.minimum(1))).check(z.describe("1 for the next of the account's runs to be dispatched; null unless queued.")),
  chunks_total: z.nullable(count),
  chunks_done: count,
  fraction: z.number().check(z.minimum(0), z.maximum(1), z.describe('Never goes down; 1 only when completed.')),
  updated_at: timestamp,
});
export type AnalysisProgressResource = z.infer<typeof analysisProgressSchema>;

const providerSchema = z.union([
  z.object({ id: z.string(), name: z.string(), kind: z.enum(['recorded_video', 'social', 'meeting', 'storage']) }),
  z.object({ kind: z.literal('trusted_host'), host: z.string() }),
]);

const analysisSourceSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('upload'), upload_id: id('upload'), media_kind: mediaKind, duration_ms: milliseconds }),
    z.object({
      kind: z.literal('url'),
      provider: providerSchema,
      host: z.string(),
      media_kind: z.literal('video'),
      duration_ms: milliseconds,
      size_bytes: z.nullable(count),
      title: z.nullable(z.string()),
    }),
  ])
  .check(z.describe('Never a URL: raw source URLs and signed queries are not shown.'));

export const analysisSchema = z.object({
  object: z.literal('analysis'),
  analysis_id: id('analysis'),
  kind: z.enum(analysisKinds),
  run_id: z.nullable(id('run')).check(z.describe('The scanner run, for kind scanner_run.')),
  status: z.enum(analysisStatuses),
  source: z.nullable(analysisSourceSchema),
  window: z.nullable(windowSchema),
  what_to_find: z.nullable(z.string()),
  profile: z.nullable(z.enum(profiles)),
  chat_moment_types: z.nullable(z.array(z.enum(chatMomentTypes))),
  speech_cleanup: z.nullable(z.enum(speechCleanups)),
  max_moments: z.nullable(z.int()),
  min_seconds: z.nullable(z.int()),
  max_seconds: z.nullable(z.int()),
  billing: z.object({ credits: count, state: z.enum(billingStates), proof: z.boolean().check(z.describe('Paid by the proof allowance.')) }),
  error: z.nullable(terminalErrorSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export type AnalysisResource = z.infer<typeof analysisSchema>;

export const sourcePreflightSchema = z.object({
  object: z.literal('source_preflight'),
  provider: providerSchema,
  host: z.string(),
  media_kind: z.literal('video'),
  duration_ms: milliseconds,
  title: z.nullable(z.string()),
  size_bytes: z.nullable(count),
  max_window_seconds: count.check(z.describe('The longest window this account can analyse now (credits or proof allowance).')),
  proof_available: z.boolean(),
});
export type SourcePreflightResource = z.infer<typeof sourcePreflightSchema>;

export const analysisQuoteSchema = z.object({
  object: z.literal('analysis_quote'),
  window: windowSchema,
  billed_seconds: z.number().check(z.minimum(0)),
  credits: count.check(z.describe('1 per started minute of the window; 0 when the proof allowance pays.')),
  balance_credits: z.int(),
  affordable: z.boolean(),
  proof: z.object({ available: z.boolean(), applies: z.boolean() }),
  limits: z.object({ max_source_bytes: count, concurrency: z.int().check(z.minimum(1)) }),
});
export type AnalysisQuoteResource = z.infer<typeof analysisQuoteSchema>;
