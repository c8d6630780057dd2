/**
 * One example of each resource for the OpenAPI document. Typed by the response schemas, so an
 * example cannot name a field the schema lacks; the unit tests also validate each against the
 * generated document.
 */
import type * as z from '../shared/zod.js';
import type { AccountResource } from '../resources/account/response.js';
import type { AnalysisResource, MomentResource } from '../resources/analyses/response.js';
import type { BatchItemResource, BatchSummaryResource } from '../resources/batches/response.js';
import { presentList } from '../resources/common/list.js';
import type { ResourceName, resourceSchemas } from '../resources/components.js';
import type { ObservationResource } from '../resources/observations/response.js';
import type { RenderResource } from '../resources/renders/response.js';
import type { RunResource } from '../resources/runs/response.js';
import type { ScannerResource } from '../resources/scanners/response.js';
import type { UploadResource } from '../resources/uploads/response.js';
import type { WebhookDeliveryResource } from '../resources/webhook-deliveries/response.js';
import type { WebhookEndpointResource } from '../resources/webhook-endpoints/response.js';
import { presentRenderPresets } from '../resources/renders/presenter.js';

const at = '2026-11-23T10:15:30.123Z';
const later = '2026-11-23T10:16:02.456Z';
const ids = {
  account: 'acct_0193a4b1c2d37e8f9a0b1c2d3e4f5a60',
  scanner: 'scn_0193a4b1c2d37e8f9a0b1c2d3e4f5a61',
  upload: 'upl_0193a4b1c2d37e8f9a0b1c2d3e4f5a62',
  run: 'run_0193a4b1c2d37e8f9a0b1c2d3e4f5a63',
  analysis: 'ana_0193a4b1c2d37e8f9a0b1c2d3e4f5a64',
  observation: 'obs_0193a4b1c2d37e8f9a0b1c2d3e4f5a65',
  moment: 'mom_0193a4b1c2d37e8f9a0b1c2d3e4f5a66',
  batch: 'bat_0193a4b1c2d37e8f9a0b1c2d3e4f5a67',
  oneOff: 'ana_0193a4b1c2d37e8f9a0b1c2d3e4f5a68',
  webhookEndpoint: 'whe_0193a4b1c2d37e8f9a0b1c2d3e4f5a69',
  testEvent: 'evt_0193a4b1c2d37e8f9a0b1c2d3e4f5a6a',
  delivery: 'dlv_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b',
  runEvent: 'evt_5f0c2a9e7b3d41c8a6e2f9b0d4c7a1e3',
};

const account: AccountResource = {
  object: 'account',
  account_id: ids.account,
  plan: 'creator',
  wallet: { balance_credits: 9_874, credit_unit_seconds: 60 },
  limits: { max_video_bytes: 8_589_934_592, max_audio_bytes: 2_147_483_648, max_source_minutes: 120, max_observations: 50 },
  retention: { days: 90 },
  concurrency: { limit: 3, in_use: 1, queued: 0 },
  proof_allowance: { analysis_available: true, max_window_seconds: 7200 },
  built_in_providers: [{ id: 'youtube', name: 'YouTube', kind: 'recorded_video' }],
  trusted_hosts: ['media.example.com'],
  event_delivery: { available: true },
  created_at: at,
  updated_at: later,
};

const scanner: ScannerResource = {
  object: 'scanner',
  scanner_id: ids.scanner,
  version: 1,
  name: 'Cuts',
  instructions: 'Find the scene changes',
  type: 'find_moments',
  profile: null,
  max_observations: null,
  min_seconds: 5,
  max_seconds: 20,
  output: null,
  metadata: { team: 'editorial' },
  created_at: at,
  updated_at: at,
};

const upload: UploadResource = {
  object: 'upload',
  upload_id: ids.upload,
  status: 'ready',
  media_kind: 'video',
  filename: 'clip.mp4',
  content_type: 'video/mp4',
  size_bytes: 1_048_576,
  upload_method: null,
  upload_url: null,
  upload_headers: null,
  upload_parts: null,
  expires_at: '2026-11-23T10:30:30.123Z',
  duration_ms: 95_000,
  streams: [
    { index: 0, type: 'video', codec: 'h264', width: 1280, height: 720, frame_rate: 30, channels: null, sample_rate: null, attached_picture: false },
    { index: 1, type: 'audio', codec: 'aac', width: null, height: null, frame_rate: null, channels: 2, sample_rate: 48_000, attached_picture: false },
  ],
  error: null,
  retention_expires_at: '2027-02-21T10:15:31.000Z',
  ready_at: later,
  failed_at: null,
  created_at: at,
  updated_at: later,
};

const run: RunResource = {
  object: 'run',
  run_id: ids.run,
  status: 'completed',
  source_kind: 'upload',
  media_kind: 'video',
  analysis_id: ids.analysis,
  scanner_id: ids.scanner,
  scanner_version: 1,
  upload_id: ids.upload,
  source: { kind: 'upload', upload_id: ids.upload, media_kind: 'video', duration_ms: 95_000 },
  window: { analysis_start_seconds: 0, analysis_end_seconds: 60 },
  metadata: { episode: 42 },
  billing: { credits: 1, state: 'charged' },
  observation_count: 1,
  error: null,
  provenance: {
    scanner: {
      scanner_id: ids.scanner,
      version: 1,
      definition: { name: 'Cuts', instructions: 'Find the scene changes', type: 'find_moments', min_seconds: 5, max_seconds: 20 },
    },
  },
  created_at: at,
  updated_at: later,
  started_at: at,
  completed_at: later,
};

const observation: ObservationResource = {
  object: 'observation',
  observation_id: ids.observation,
  scanner_id: ids.scanner,
  scanner_version: 1,
  run_id: ids.run,
  analysis_id: ids.analysis,
  type: 'find_moments',
  value_type: 'object',
  semantics: 'timestamped_moment',
  value: { moment_id: ids.moment, event_type: 'scene_change' },
  title: 'Hard cut to the stage',
  summary: 'A scene cut with a loudness peak.',
  relevance_score: 0.82,
  evidence: {
    media_kind: 'video',
    evidence_kind: 'visual',
    start_ms: 12_000,
    end_ms: 24_000,
    duration_ms: 12_000,
    transcript_excerpt: null,
    speaker: null,
    signals: ['scene_cut', 'loudness_peak'],
  },
  source_metadata: { episode: 42 },
  created_at: later,
};

const moment: MomentResource = {
  object: 'moment',
  id: ids.moment,
  start_ms: 12_000,
  end_ms: 24_000,
  duration_ms: 12_000,
  score: 0.82,
  title: 'Hard cut to the stage',
  event_type: 'scene_change',
  transcript_excerpt: '',
  edit: { mode: 'continuous', subclips: [] },
  run_id: ids.run,
  observation_id: ids.observation,
};

const render: RenderResource = {
  object: 'render',
  render_id: 'rnd_0193a4b1c2d37e8f9a0b1c2d3e4f5a70',
  analysis_id: 'ana_0193a4b1c2d37e8f9a0b1c2d3e4f5a64',
  status: 'completed',
  moment_ids: ['mom_0193a4b1c2d37e8f9a0b1c2d3e4f5a66'],
  render: { output: { format: 'mp4', aspect_ratio: '9:16' }, captions: { enabled: false, preset_id: 'bold_pop' }, framing: { mode: 'auto' } },
  assets: [
    {
      moment_id: 'mom_0193a4b1c2d37e8f9a0b1c2d3e4f5a66',
      status: 'completed',
      url: 'https://media.example.com/accounts/acct_x/renders/rnd_x/mom_x.mp4?X-Amz-Signature=...',
      url_expires_at: '2026-11-23T11:16:02.456Z',
      content_type: 'video/mp4',
      width: 1080,
      height: 1920,
      duration_ms: 12_000,
      size_bytes: 4_812_331,
      captions: false,
      error: null,
    },
  ],
  error: null,
  created_at: at,
  updated_at: later,
};

const analysis: AnalysisResource = {
  object: 'analysis',
  analysis_id: ids.oneOff,
  kind: 'one_off',
  run_id: null,
  status: 'queued',
  source: {
    kind: 'url',
    provider: { id: 'youtube', name: 'YouTube', kind: 'recorded_video' },
    host: 'www.youtube.com',
    media_kind: 'video',
    duration_ms: 1_830_000,
    size_bytes: null,
    title: 'Episode 42',
  },
  window: { analysis_start_seconds: 0, analysis_end_seconds: 600 },
  what_to_find: 'Moments where the guest tells a story',
  profile: 'conversation',
  chat_moment_types: ['story'],
  speech_cleanup: 'natural',
  max_moments: 5,
  min_seconds: 15,
  max_seconds: 60,
  billing: { credits: 10, state: 'reserved', proof: false },
  error: null,
  created_at: at,
  updated_at: at,
};

const batchSummary: BatchSummaryResource = {
  object: 'scanner_batch',
  batch_id: ids.batch,
  status: 'processing',
  counters: { total: 2, queued: 1, processing: 1, completed: 0, failed: 0, canceled: 0 },
  created_at: at,
  updated_at: later,
  completed_at: null,
};

const batchItem: BatchItemResource = {
  object: 'scanner_batch_item',
  client_id: 'ep-41',
  scanner_id: ids.scanner,
  scanner_version: 1,
  upload_id: ids.upload,
  metadata: { episode: 41 },
  status: 'processing',
  run_id: ids.run,
  analysis_id: ids.analysis,
  error: null,
  created_at: at,
  updated_at: later,
};

const webhookEndpoint: WebhookEndpointResource = {
  object: 'webhook_endpoint',
  endpoint_id: ids.webhookEndpoint,
  url: 'https://hooks.example.com/media-scanner',
  events: ['run.completed', 'run.failed'],
  description: 'Production receiver',
  enabled: true,
  created_at: at,
  updated_at: at,
};

/** A run.completed delivered at the second attempt, after a 503. */
const webhookDelivery: WebhookDeliveryResource = {
  object: 'webhook_delivery',
  delivery_id: ids.delivery,
  endpoint_id: ids.webhookEndpoint,
  event_id: ids.runEvent,
  event_type: 'run.completed',
  status: 'succeeded',
  attempts: [
    { at, status_code: 503, error: null, duration_ms: 84, response_body: 'Service Unavailable' },
    { at: later, status_code: 200, error: null, duration_ms: 61, response_body: '{"received":true}' },
  ],
  next_attempt_at: null,
  created_at: at,
  updated_at: later,
};

const list = <T>(item: T) => presentList({ items: [item], nextCursor: null }, (same) => same);

export const resourceExamples = {
  ErrorEnvelope: { error: { type: 'not_found_error', code: 'not_found', message: 'No such scanner.', request_id: 'c0a8012e-6f1b-4b52-9c1d-2f7e3a9b8d41' } },
  Metadata: { episode: 42, team: 'editorial' },
  Account: account,
  Scanner: scanner,
  ScannerList: list(scanner),
  Upload: upload,
  UploadList: list(upload),
  Run: run,
  ScannerDefinition: run.provenance.scanner.definition,
  Observation: observation,
  Evidence: observation.evidence,
  ObservationList: list(observation),
  Moment: moment,
  MomentList: { object: 'moment_list', analysis_id: ids.analysis, count: 1, moments: [moment] },
  AnalysisProgress: {
    object: 'analysis_progress',
    analysis_id: ids.analysis,
    run_id: ids.run,
    status: 'processing',
    queue_position: null,
    chunks_total: 4,
    chunks_done: 1,
    fraction: 0.238,
    updated_at: later,
  },
  Analysis: analysis,
  AnalysisList: list(analysis),
  SourcePreflight: {
    object: 'source_preflight',
    provider: { id: 'youtube', name: 'YouTube', kind: 'recorded_video' },
    host: 'www.youtube.com',
    media_kind: 'video',
    duration_ms: 1_830_000,
    title: 'Episode 42',
    size_bytes: null,
    max_window_seconds: 1830,
    proof_available: true,
  },
  AnalysisQuote: {
    object: 'analysis_quote',
    window: { analysis_start_seconds: 0, analysis_end_seconds: 600 },
    billed_seconds: 600,
    credits: 10,
    balance_credits: 9_874,
    affordable: true,
    proof: { available: true, applies: false },
    limits: { max_source_bytes: 10_737_418_240, concurrency: 3 },
  },
  ScannerBatchSummary: batchSummary,
  ScannerBatchSummaryList: list(batchSummary),
  ScannerBatchItem: batchItem,
  ScannerBatch: { ...batchSummary, items: [batchItem], items_next_cursor: null },
  WebhookEndpoint: webhookEndpoint,
  // An example only: a real secret is 32 random bytes.
  WebhookEndpointWithSecret: { ...webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  WebhookEndpointList: list(webhookEndpoint),
  DeletedWebhookEndpoint: { object: 'webhook_endpoint', endpoint_id: ids.webhookEndpoint, deleted: true },
  WebhookTest: { object: 'webhook_test', endpoint_id: ids.webhookEndpoint, event_id: ids.testEvent, event_type: 'webhook.test', created_at: later },
  WebhookDelivery: webhookDelivery,
  WebhookDeliveryList: list(webhookDelivery),
  RenderPresets: presentRenderPresets(),
  Render: render,
  RenderList: list(render),
} satisfies { [K in Exclude<ResourceName, 'OpenApiDocument'>]: z.output<(typeof resourceSchemas)[K]> };
