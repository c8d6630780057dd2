/**
 * Response schemas: every resource the presenters (functions/shared/*-presenters.ts) shape, as
 * zod schemas. They are the contract of the OpenAPI document (functions/api/openapi.ts), and the
 * presenters are typed against them (z.infer), so a presenter cannot add, drop or retype a field
 * without the document changing too. Nothing parses responses at run time: Lambdas import only
 * the types of this module (`import type`), never its values.
 */
import * as z from '../shared/zod.js';
import { errorCatalog } from '../domain/errors.js';
import { idPattern, type IdKind } from '../domain/ids.js';
import { planNames } from '../domain/plans.js';
import { chatMomentTypes } from '../domain/analysis/moment-brief.js';
import { evidenceKinds, observationTypes } from '../domain/analysis/observation-types.js';
import { metadataSchema } from './common/fields.js';
import { profiles, scannerCreateSchema, scannerTypes } from './scanners/request.js';
import { uploadContentTypes, uploadStatuses } from './uploads/request.js';
import { subscribableEventTypes } from '../domain/webhooks/model.js';
import { deliveryStatuses } from './webhook-deliveries/request.js';
import { FONTS, FRAMING_MODES, RENDER_FORMATS, aspectRatioIds, captionPresetIds } from '../domain/renders/presets.js';

// ---- Building blocks -----------------------------------------------------------------------

/** DESIGN §3: ISO 8601 UTC with milliseconds. The format is what clients check; zod's own regex would only add noise. */
const timestamp = z.string().check(z.meta({ format: 'date-time', examples: ['2026-11-23T10:15:30.123Z'] }));
const nullableTimestamp = z.nullable(timestamp);
const id = (kind: IdKind) => z.string().check(z.regex(idPattern(kind)));
const count = z.int().check(z.minimum(0));
const milliseconds = z.int().check(z.minimum(0));
const mediaKind = z.enum(['video', 'audio']);
const runStatuses = ['queued', 'dispatched', 'processing', 'completed', 'failed'] as const;
const analysisStatuses = ['queued', 'dispatched', 'processing', 'completed', 'failed', 'canceled'] as const;
const billingStates = ['reserved', 'charged', 'refunded'] as const;

/** Why terminal work failed (runs, analyses, batch items). */
export const terminalErrorSchema = z
  .object({ code: z.string(), message: z.string() })
  .check(z.describe('Why the work ended in failure; null unless it did.'));

/** A window of a source, in seconds (runs of video find_moments scanners, one-off analyses). */
const windowSchema = z.object({
  analysis_start_seconds: z.number().check(z.minimum(0)),
  analysis_end_seconds: z.number().check(z.minimum(0)),
});

// ---- Errors (DESIGN §4) --------------------------------------------------------------------

export const errorCodes = Object.keys(errorCatalog) as [keyof typeof errorCatalog, ...(keyof typeof errorCatalog)[]];
const errorTypes = [...new Set(Object.values(errorCatalog).map((entry) => entry.type))] as [string, ...string[]];

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      type: z.enum(errorTypes).check(z.describe('The family of the error.')),
      code: z.enum(errorCodes).check(z.describe('Stable, machine-readable reason; each operation lists the codes it can answer.')),
      message: z.string().check(z.describe('For people; may change at any time.')),
      param: z.optional(z.string()).check(z.describe('The request field at fault, as a path such as `items[3].upload_id`.')),
      request_id: z.string().check(z.describe('Equal to the x-request-id header; quote it when asking for help.')),
    }),
  })
  .check(z.describe('Every error answers in this envelope, with `content-type: application/json`.'));
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

// ---- Lists (DESIGN §3) ---------------------------------------------------------------------

/** `{object: "list", data, next_cursor}`: pass next_cursor back as `?cursor=` for the next page. */
export const listSchema = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    next_cursor: z.nullable(z.string()).check(z.describe('Opaque; send it back as `cursor` for the next page. Null on the last page.')),
  });
export type List<T> = { object: 'list'; data: T[]; next_cursor: string | null };

// ---- Account -------------------------------------------------------------------------------

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
    .check(
      z.describe('Whether webhook endpoints can be created and events are delivered to them; when not (off for the deployment or the account), poll.'),
    ),
  created_at: timestamp,
  updated_at: timestamp,
});
export type AccountResource = z.infer<typeof accountSchema>;

// ---- Scanners ------------------------------------------------------------------------------

const scannerOutputSchema = z.object({ labels: z.optional(z.array(z.string())), fields: z.optional(z.array(z.string())) });

export const scannerSchema = z.object({
  object: z.literal('scanner'),
  scanner_id: id('scanner'),
  version: z.int().check(z.minimum(1), z.describe('1 on creation; every PATCH creates the next immutable version.')),
  name: z.string(),
  instructions: z.string(),
  type: z.enum(scannerTypes),
  profile: z.nullable(z.enum(profiles)),
  max_observations: z.nullable(z.int().check(z.minimum(1))).check(z.describe("Null: the account's cap.")),
  min_seconds: z.nullable(z.int()),
  max_seconds: z.nullable(z.int()),
  output: z.nullable(scannerOutputSchema).check(z.describe('Classifier labels or extractor fields.')),
  metadata: metadataSchema,
  created_at: timestamp.check(z.describe('When version 1 was created.')),
  updated_at: timestamp.check(z.describe('When this version was created.')),
});
export type ScannerResource = z.infer<typeof scannerSchema>;

// ---- Uploads -------------------------------------------------------------------------------

const streamSchema = z.object({
  index: z.int().check(z.minimum(0)),
  type: mediaKind,
  codec: z.string(),
  width: z.nullable(z.int()),
  height: z.nullable(z.int()),
  frame_rate: z.nullable(z.number()),
  channels: z.nullable(z.int()),
  sample_rate: z.nullable(z.int()),
  attached_picture: z.boolean().check(z.describe('Cover art: accepted, never decoded.')),
});

export const uploadSchema = z.object({
  object: z.literal('upload'),
  upload_id: id('upload'),
  status: z.enum(uploadStatuses).check(z.describe('Only `ready` can start a run.')),
  media_kind: mediaKind,
  filename: z.string(),
  content_type: z.enum(uploadContentTypes),
  size_bytes: z.int().check(z.minimum(1)),
  upload_method: z.nullable(z.literal('PUT')).check(z.describe('Only in the POST /v1/uploads answer (single-PUT uploads).')),
  upload_url: z.nullable(z.string()).check(z.describe('Signed, time-limited; only in the POST /v1/uploads answer.')),
  upload_headers: z
    .nullable(z.record(z.string(), z.string()))
    .check(z.describe('Send every entry with the bytes; they are part of the signature. `{}` for multipart uploads.')),
  upload_parts: z
    .nullable(z.array(z.object({ part_number: z.int().check(z.minimum(1)), upload_url: z.string(), size_bytes: z.int().check(z.minimum(1)) })))
    .check(z.describe('Over 5 GiB: one PUT per part instead of upload_url; only in the POST /v1/uploads answer.')),
  expires_at: timestamp.check(z.describe('Deadline of the signed target(s); not the retention deadline.')),
  duration_ms: z.nullable(milliseconds),
  streams: z.nullable(z.array(streamSchema)),
  error: z.nullable(z.object({ code: z.string(), message: z.string() })).check(z.describe('Why the upload failed (docs/uploads.md lists the codes).')),
  retention_expires_at: nullableTimestamp,
  ready_at: nullableTimestamp,
  failed_at: nullableTimestamp,
  created_at: timestamp,
  updated_at: timestamp,
});
export type UploadResource = z.infer<typeof uploadSchema>;

// ---- Runs, observations, moments, progress -------------------------------------------------

export const runSchema = z.object({
  object: z.literal('run'),
  run_id: id('run'),
  status: z.enum(runStatuses),
  source_kind: z.literal('upload'),
  media_kind: mediaKind,
  analysis_id: id('analysis').check(z.describe('The analysis that carries the run\'s lifecycle, progress and billing.')),
  scanner_id: id('scanner'),
  scanner_version: z.int().check(z.minimum(1)),
  upload_id: id('upload'),
  source: z.object({ kind: z.literal('upload'), upload_id: id('upload'), media_kind: mediaKind, duration_ms: milliseconds }),
  window: z.nullable(windowSchema),
  metadata: metadataSchema,
  billing: z.object({ credits: count, state: z.enum(billingStates) }),
  observation_count: z.nullable(count),
  error: z.nullable(terminalErrorSchema),
  provenance: z.object({
    scanner: z.object({ scanner_id: id('scanner'), version: z.int().check(z.minimum(1)), definition: scannerCreateSchema }),
  }),
  created_at: timestamp,
  updated_at: timestamp,
  started_at: nullableTimestamp,
  completed_at: nullableTimestamp,
});
export type RunResource = z.infer<typeof runSchema>;

const evidenceSchema = z.object({
  media_kind: mediaKind,
  evidence_kind: z.enum([...evidenceKinds.video, ...evidenceKinds.audio]).check(z.describe('Video: visual. Audio: transcript, audio or audio_and_transcript.')),
  start_ms: milliseconds,
  end_ms: milliseconds,
  duration_ms: milliseconds,
  transcript_excerpt: z.nullable(z.string()).check(z.describe('Not a certified verbatim transcript.')),
  speaker: z.nullable(z.string()),
  signals: z.array(z.string()).check(z.describe('The signals the answer rests on; may be empty.')),
});

/** SPEC "Scanner types and the observation value they fix": one variant per type, from the same table. */
const valueOf = {
  monitor: z.boolean(),
  summarizer: z.string(),
  classifier: z.string().check(z.describe('A configured label, or `other` when none fits.')),
  scorer: z.number().check(z.minimum(0), z.maximum(1)),
  extractor: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).check(z.describe('Only the requested output fields.')),
  find_moments: z.object({ event_type: z.string(), moment_id: z.optional(id('moment')).check(z.describe('Video only: a renderable Moment ID.')) }),
} as const satisfies Record<keyof typeof observationTypes, z.ZodMiniType>;

const observationVariant = <T extends keyof typeof observationTypes>(type: T) =>
  z.object({
    object: z.literal('observation'),
    observation_id: id('observation'),
    scanner_id: id('scanner'),
    scanner_version: z.int().check(z.minimum(1)),
    run_id: id('run'),
    analysis_id: id('analysis'),
    type: z.literal(type),
    value_type: z.literal(observationTypes[type].value_type),
    semantics: z.literal(observationTypes[type].semantics),
    value: valueOf[type],
    title: z.string(),
    summary: z.string(),
    relevance_score: z.number().check(z.describe('Ranks support for the instructions; not a calibrated confidence.')),
    evidence: evidenceSchema,
    // A copy of the run's metadata (described by name: a described copy would not be the Metadata component).
    source_metadata: metadataSchema,
    created_at: timestamp,
  });

export const observationSchema = z.discriminatedUnion('type', [
  observationVariant('monitor'),
  observationVariant('summarizer'),
  observationVariant('classifier'),
  observationVariant('scorer'),
  observationVariant('extractor'),
  observationVariant('find_moments'),
]);
export type ObservationResource = z.infer<typeof observationSchema>;

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
  queue_position: z.nullable(z.int().check(z.minimum(1))).check(z.describe('1 for the next of the account\'s runs to be dispatched; null unless queued.')),
  chunks_total: z.nullable(count),
  chunks_done: count,
  fraction: z.number().check(z.minimum(0), z.maximum(1), z.describe('Never goes down; 1 only when completed.')),
  updated_at: timestamp,
});
export type AnalysisProgressResource = z.infer<typeof analysisProgressSchema>;

// ---- One-off analyses (DESIGN 10) ----------------------------------------------------------

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
  kind: z.enum(['one_off', 'scanner_run']),
  run_id: z.nullable(id('run')).check(z.describe('The scanner run, for kind scanner_run.')),
  status: z.enum(analysisStatuses),
  source: z.nullable(analysisSourceSchema),
  window: z.nullable(windowSchema),
  what_to_find: z.nullable(z.string()),
  profile: z.nullable(z.enum(profiles)),
  chat_moment_types: z.nullable(z.array(z.enum(chatMomentTypes))),
  speech_cleanup: z.nullable(z.enum(['natural', 'tight'])),
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

// ---- Scanner batches -----------------------------------------------------------------------

const batchStatuses = ['queued', 'processing', 'canceling', 'completed', 'partial', 'failed', 'canceled'] as const;
const itemStatuses = ['queued', 'processing', 'completed', 'failed', 'canceled'] as const;

export const batchSummarySchema = z.object({
  object: z.literal('scanner_batch'),
  batch_id: id('batch'),
  status: z.enum(batchStatuses),
  counters: z
    .object({ total: count, queued: count, processing: count, completed: count, failed: count, canceled: count })
    .check(z.describe('Always add up to total.')),
  created_at: timestamp,
  updated_at: timestamp,
  completed_at: nullableTimestamp,
});
export type BatchSummaryResource = z.infer<typeof batchSummarySchema>;

export const batchItemSchema = z.object({
  object: z.literal('scanner_batch_item'),
  client_id: z.string(),
  scanner_id: id('scanner'),
  scanner_version: z.int().check(z.minimum(1), z.describe('Pinned at submission.')),
  upload_id: id('upload'),
  metadata: metadataSchema,
  status: z.enum(itemStatuses),
  run_id: z.nullable(id('run')),
  analysis_id: z.nullable(id('analysis')),
  error: z.nullable(terminalErrorSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export type BatchItemResource = z.infer<typeof batchItemSchema>;

export const batchSchema = z.extend(batchSummarySchema, {
  items: z.array(batchItemSchema).check(z.describe('One page of items, in request order.')),
  items_next_cursor: z.nullable(count).check(z.describe('Send as item_cursor for the next page of items; null on the last.')),
});
export type BatchResource = z.infer<typeof batchSchema>;

// ---- Webhook endpoints (DESIGN 10) ---------------------------------------------------------

export const webhookEndpointSchema = z.object({
  object: z.literal('webhook_endpoint'),
  endpoint_id: id('webhookEndpoint'),
  url: z.string().check(z.describe('Where events are POSTed: HTTPS on public addresses, checked at creation and again at every delivery.')),
  events: z.array(z.enum(subscribableEventTypes)).check(z.describe('The event types delivered to this endpoint.')),
  description: z.nullable(z.string()),
  enabled: z.boolean().check(z.describe('A disabled endpoint receives nothing.')),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WebhookEndpointResource = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointWithSecretSchema = z.extend(webhookEndpointSchema, {
  secret: z
    .string()
    .check(z.regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/), z.describe('The signing secret (Standard Webhooks), shown only in this answer: store it now.')),
});
export type WebhookEndpointWithSecretResource = z.infer<typeof webhookEndpointWithSecretSchema>;

export const deletedWebhookEndpointSchema = z.object({
  object: z.literal('webhook_endpoint'),
  endpoint_id: id('webhookEndpoint'),
  deleted: z.literal(true),
});
export type DeletedWebhookEndpointResource = z.infer<typeof deletedWebhookEndpointSchema>;

export const webhookTestSchema = z.object({
  object: z.literal('webhook_test'),
  endpoint_id: id('webhookEndpoint'),
  event_id: id('event').check(z.describe('The `webhook-id` the test delivery carries; it is listed at GET /v1/webhook-deliveries.')),
  event_type: z.literal('webhook.test'),
  created_at: timestamp,
});
export type WebhookTestResource = z.infer<typeof webhookTestSchema>;

// ---- Webhook deliveries (DESIGN 10) ------------------------------------------------------

export const deliveryAttemptSchema = z.object({
  at: timestamp.check(z.describe('When the attempt started.')),
  status_code: z.nullable(z.int().check(z.minimum(100), z.maximum(599))).check(z.describe('The receiver\'s HTTP status; a 2xx within 15 s is success, a 3xx is never followed. Null when there was no answer.')),
  error: z.nullable(z.string()).check(
    z.describe(
      'Why there was no answer: target_refused (the URL now breaks the outbound rules), dns_failed (the hostname did not resolve at that attempt), connect_failed, tls_failed, timeout, network_error; ' +
        'or why nothing was sent: endpoint_disabled, endpoint_deleted, event_delivery_unavailable. Null when the receiver answered.',
    ),
  ),
  duration_ms: milliseconds,
  response_body: z.nullable(z.string()).check(z.describe('The first 1 KiB of the receiver\'s answer, as text.')),
});
export type DeliveryAttemptResource = z.infer<typeof deliveryAttemptSchema>;

export const webhookDeliverySchema = z.object({
  object: z.literal('webhook_delivery'),
  delivery_id: id('delivery'),
  endpoint_id: id('webhookEndpoint'),
  event_id: id('event').check(z.describe('The `webhook-id` header of every attempt: the same on each retry.')),
  event_type: z.enum([...subscribableEventTypes, 'webhook.test']),
  status: z.enum(deliveryStatuses).check(z.describe('pending until a 2xx answers (succeeded) or the retry schedule is spent (failed).')),
  attempts: z.array(deliveryAttemptSchema).check(z.describe('Every attempt, oldest first.')),
  next_attempt_at: nullableTimestamp.check(z.describe('When the next attempt is due; null once succeeded or failed.')),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WebhookDeliveryResource = z.infer<typeof webhookDeliverySchema>;

// ---- Renders (DESIGN 10) -------------------------------------------------------------------

export const renderPresetsSchema = z.object({
  object: z.literal('render_presets'),
  formats: z.array(z.enum(RENDER_FORMATS)),
  aspect_ratios: z
    .array(z.object({ id: z.enum(aspectRatioIds), width: z.nullable(z.int().check(z.minimum(2))), height: z.nullable(z.int().check(z.minimum(2))) }))
    .check(z.describe('Exact output sizes; `original` keeps the source size (null here).')),
  caption_presets: z.array(
    z.object({
      id: z.enum(captionPresetIds),
      name: z.string(),
      font_id: z.enum(FONTS.map((f) => f.id) as [string, ...string[]]),
      font_size: z.int().check(z.describe('Pixels at a 1080-wide output; scales with the width.')),
      text_color: z.string(),
      highlight_color: z.nullable(z.string()).check(z.describe('The colour of the word being spoken; null: no word highlight.')),
      outline_color: z.string(),
      outline_width: z.int(),
      position: z.enum(['lower_third', 'bottom', 'center']),
      max_words_per_line: z.int().check(z.minimum(1)),
      uppercase: z.boolean(),
      word_highlight: z.boolean(),
    }),
  ),
  fonts: z.array(z.object({ id: z.string(), family: z.string(), style: z.string(), license: z.string(), license_url: z.string() })),
  effects: z.array(z.object({ id: z.string(), description: z.string() })),
  framing_modes: z.array(z.enum(FRAMING_MODES)).check(z.describe('`auto` (default) keeps the subject in frame; `stacked`: left and right halves stacked, portrait outputs only.')),
});
export type RenderPresetsResource = z.infer<typeof renderPresetsSchema>;

const renderAssetSchema = z.object({
  moment_id: id('moment'),
  status: z.enum(['completed', 'failed']),
  url: z.nullable(z.string()).check(z.describe('Signed, time-limited download URL (GET). Null for a failed asset and in event payloads: GET the render for a fresh one.')),
  url_expires_at: nullableTimestamp,
  content_type: z.literal('video/mp4'),
  width: z.nullable(z.int()),
  height: z.nullable(z.int()),
  duration_ms: z.nullable(milliseconds),
  size_bytes: z.nullable(count),
  captions: z.boolean().check(z.describe('Whether captions were burned in.')),
  error: z.nullable(terminalErrorSchema),
});

export const renderSchema = z.object({
  object: z.literal('render'),
  render_id: id('render'),
  analysis_id: id('analysis'),
  status: z.enum(['queued', 'processing', 'completed', 'failed']).check(z.describe('completed when at least one asset rendered; failed when none did.')),
  moment_ids: z.array(id('moment')),
  render: z.object({
    output: z.object({ format: z.enum(RENDER_FORMATS), aspect_ratio: z.enum(aspectRatioIds) }),
    captions: z.object({ enabled: z.boolean(), preset_id: z.enum(captionPresetIds) }),
    framing: z.object({ mode: z.enum(FRAMING_MODES) }),
  }),
  assets: z.array(renderAssetSchema).check(z.describe('One per finished moment, in request order.')),
  error: z.nullable(terminalErrorSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export type RenderResource = z.infer<typeof renderSchema>;
export type RenderAssetResource = z.infer<typeof renderAssetSchema>;

/** The named schemas of the document (components/schemas), in the order it lists them. */
export const resourceSchemas = {
  ErrorEnvelope: errorEnvelopeSchema,
  Metadata: metadataSchema,
  Account: accountSchema,
  Scanner: scannerSchema,
  ScannerList: listSchema(scannerSchema),
  Upload: uploadSchema,
  UploadList: listSchema(uploadSchema),
  Run: runSchema,
  ScannerDefinition: scannerCreateSchema,
  Observation: observationSchema,
  Evidence: evidenceSchema,
  ObservationList: listSchema(observationSchema),
  Moment: momentSchema,
  MomentList: momentListSchema,
  AnalysisProgress: analysisProgressSchema,
  Analysis: analysisSchema,
  AnalysisList: listSchema(analysisSchema),
  SourcePreflight: sourcePreflightSchema,
  AnalysisQuote: analysisQuoteSchema,
  ScannerBatchSummary: batchSummarySchema,
  ScannerBatchSummaryList: listSchema(batchSummarySchema),
  ScannerBatchItem: batchItemSchema,
  ScannerBatch: batchSchema,
  WebhookEndpoint: webhookEndpointSchema,
  WebhookEndpointWithSecret: webhookEndpointWithSecretSchema,
  WebhookEndpointList: listSchema(webhookEndpointSchema),
  DeletedWebhookEndpoint: deletedWebhookEndpointSchema,
  WebhookTest: webhookTestSchema,
  WebhookDelivery: webhookDeliverySchema,
  WebhookDeliveryList: listSchema(webhookDeliverySchema),
  RenderPresets: renderPresetsSchema,
  Render: renderSchema,
  RenderList: listSchema(renderSchema),
  OpenApiDocument: z.record(z.string(), z.unknown()).check(z.describe('An OpenAPI 3.1 document.')),
} as const;
export type ResourceName = keyof typeof resourceSchemas;
