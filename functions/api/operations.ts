/**
 * What the OpenAPI document says about each route beyond what the route table and the request
 * schemas already say: its name, its success answer, and the error codes only its use case can
 * answer. The request schemas are read from the handlers themselves and the common error codes
 * from the route table (functions/api/openapi.ts), so nothing here repeats them. Keyed by the
 * route table's keys: a route without an entry, or an entry without a route, does not compile.
 */
import type { ErrorCode } from '../domain/errors.js';
import type { RouteKey } from '../routes.js';
import type { ResourceName } from '../resources/components.js';

export const tags = {
  Account: "The caller's account: wallet, plan limits, retention, concurrency, providers.",
  Scanners: 'Saved, versioned questions with a typed output.',
  Uploads: 'Private video and audio sources for scanner runs: declare, PUT the bytes, complete.',
  Runs: 'A scanner version applied to one ready upload.',
  Observations: 'Typed, timestamped answers of completed runs.',
  Analyses: 'Lifecycle, progress and moments of every analysis: one-off analyses of source URLs and the analyses of scanner runs.',
  Sources: 'Measuring a source URL before a one-off analysis.',
  'Scanner batches': 'Up to 100 scanner/upload pairs as one durable record; each item is its own run.',
  Renders: 'One MP4 per moment of a completed analysis, in a preset aspect ratio and framing.',
  Webhooks: 'Signed event delivery (Standard Webhooks): endpoints, their secrets, test events and the delivery log.',
  Meta: 'This document.',
} as const;
export type Tag = keyof typeof tags;

export interface Operation {
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** The success answer: status and the named schema (components/schemas) of its body. */
  response: { status: 200 | 201 | 202; schema: ResourceName; description: string };
  /** Codes only this route's use case answers; the route table implies the rest (openapi.ts). */
  errors?: readonly ErrorCode[];
  /** An example request body; the unit tests check it against the body schema. */
  example?: Record<string, unknown>;
}

const sourceErrors = ['untrusted_source_url', 'source_unreadable', 'source_too_large', 'provider_unavailable'] as const satisfies readonly ErrorCode[];

/** One body for the quote and the submission: a client quotes exactly what it will submit. */
const oneOffExample = {
  source_url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  analysis_start_seconds: 0,
  analysis_end_seconds: 600,
  what_to_find: 'Moments where the guest tells a story',
  chat_moment_types: ['story'],
  max_moments: 5,
};

export const operations = {
  'GET /v1/account': {
    operationId: 'getAccount',
    tag: 'Account',
    summary: 'Get the account',
    description: 'Authoritative byte, window, concurrency and retention limits; built-in source providers and trusted hosts.',
    response: { status: 200, schema: 'Account', description: 'The account.' },
  },
  'POST /v1/scanners': {
    operationId: 'createScanner',
    tag: 'Scanners',
    summary: 'Create a scanner (version 1)',
    description:
      'Classifiers need `output.labels` (2-50; `other` is reserved), extractors `output.fields` (1-20 snake_case names); ' +
      '`min_seconds`/`max_seconds` (5-600) apply to find_moments only.',
    response: { status: 201, schema: 'Scanner', description: 'The scanner, version 1.' },
    example: { name: 'Cuts', instructions: 'Find the scene changes', type: 'find_moments', min_seconds: 5, max_seconds: 20, metadata: { team: 'editorial' } },
  },
  'GET /v1/scanners': {
    operationId: 'listScanners',
    tag: 'Scanners',
    summary: 'List scanners (newest first)',
    response: { status: 200, schema: 'ScannerList', description: 'A page of scanners, each at its current version.' },
  },
  'GET /v1/scanners/{scanner_id}': {
    operationId: 'getScanner',
    tag: 'Scanners',
    summary: 'Get a scanner at its current version',
    response: { status: 200, schema: 'Scanner', description: 'The scanner.' },
  },
  'PATCH /v1/scanners/{scanner_id}': {
    operationId: 'updateScanner',
    tag: 'Scanners',
    summary: 'Change a scanner (creates version N+1)',
    description: 'Any subset of the definition, at least one field; `null` clears an optional field. Runs keep the version they pinned.',
    response: { status: 200, schema: 'Scanner', description: 'The scanner at its new version.' },
    example: { instructions: 'Find the hard cuts and the fades', max_observations: null },
  },
  'GET /v1/scanners/{scanner_id}/versions': {
    operationId: 'listScannerVersions',
    tag: 'Scanners',
    summary: 'List the immutable versions of a scanner (newest first)',
    response: { status: 200, schema: 'ScannerList', description: 'A page of definition snapshots.' },
  },
  'POST /v1/uploads': {
    operationId: 'createUpload',
    tag: 'Uploads',
    summary: 'Declare an upload and get its signed target',
    description:
      'Persist the answer at once: the signed target is shown only here. PUT the raw bytes to `upload_url` with every `upload_headers` entry ' +
      '(over 5 GiB: one PUT per `upload_parts` entry), then complete. Idempotency-Key is not honoured: after a timeout, list uploads to reconcile.',
    response: { status: 201, schema: 'Upload', description: 'The pending upload with its signed target(s).' },
    example: { filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 1048576 },
  },
  'GET /v1/uploads': {
    operationId: 'listUploads',
    tag: 'Uploads',
    summary: 'List uploads (newest first)',
    description: 'Reconcile an ambiguous upload before creating another one.',
    response: { status: 200, schema: 'UploadList', description: 'A page of uploads, without signed targets.' },
  },
  'GET /v1/uploads/{upload_id}': {
    operationId: 'getUpload',
    tag: 'Uploads',
    summary: 'Get an upload',
    response: { status: 200, schema: 'Upload', description: 'The upload, without signed targets.' },
  },
  'POST /v1/uploads/{upload_id}/complete': {
    operationId: 'completeUpload',
    tag: 'Uploads',
    summary: 'Probe the bytes and finish the upload',
    description: 'Safe to retry once the bytes exist; an upload that is already ready or failed is returned as it is.',
    response: { status: 200, schema: 'Upload', description: 'The upload: `ready`, or `failed` with its error.' },
    errors: ['upload_object_missing'],
  },
  'POST /v1/scanners/{scanner_id}/runs': {
    operationId: 'createRun',
    tag: 'Runs',
    summary: 'Run the current scanner version over a ready upload',
    description:
      'Reserves `ceil(seconds / 60)` credits now (the window of a video find_moments run, else the whole upload) and answers at once; ' +
      'poll the run every 5-10 s with jitter. A failed run is refunded.',
    response: { status: 202, schema: 'Run', description: 'The queued run.' },
    errors: ['upload_not_found', 'upload_not_ready', 'window_not_supported', 'insufficient_credits', 'queue_unavailable'],
    example: { upload_id: 'upl_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b', analysis_start_seconds: 0, analysis_end_seconds: 120, metadata: { episode: 42 } },
  },
  'GET /v1/runs/{run_id}': {
    operationId: 'getRun',
    tag: 'Runs',
    summary: 'Get a run',
    response: { status: 200, schema: 'Run', description: 'Status, source, billing and the pinned definition.' },
  },
  'GET /v1/runs/{run_id}/observations': {
    operationId: 'listRunObservations',
    tag: 'Observations',
    summary: 'List the observations of a completed run (rank order)',
    description: 'Zero observations is a real answer: the recording cannot support one.',
    response: { status: 200, schema: 'ObservationList', description: 'A page of observations.' },
    errors: ['run_not_completed'],
  },
  'GET /v1/observations': {
    operationId: 'listObservations',
    tag: 'Observations',
    summary: 'List observations across runs',
    description: 'Filters combine with AND. Aggregate only compatible semantics and scanner versions.',
    response: { status: 200, schema: 'ObservationList', description: 'A page of observations, newest first.' },
  },
  'POST /v1/sources/preflight': {
    operationId: 'preflightSource',
    tag: 'Sources',
    summary: 'Measure a source URL',
    description: 'Provider, duration, size, the longest affordable window and proof availability. No credits, nothing stored.',
    response: { status: 200, schema: 'SourcePreflight', description: 'What the source is.' },
    errors: sourceErrors,
    example: { source_url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
  },
  'POST /v1/analyses/quote': {
    operationId: 'quoteAnalysis',
    tag: 'Analyses',
    summary: 'Price one window of a source URL',
    description:
      'Takes the body of POST /v1/analyses, validated the same way, so a client prices exactly what it will submit; only the source, the window and use_proof_allowance bear on the price.',
    response: { status: 200, schema: 'AnalysisQuote', description: 'Exact credits, balance and affordability.' },
    errors: [...sourceErrors, 'window_out_of_range'],
    example: oneOffExample,
  },
  'POST /v1/analyses': {
    operationId: 'createAnalysis',
    tag: 'Analyses',
    summary: 'Analyse one window of a source URL (one-off)',
    description: 'Re-prices the window and reserves its credits (or claims the proof allowance) before acquisition; poll every 5-10 s with jitter.',
    response: { status: 202, schema: 'Analysis', description: 'The queued analysis.' },
    errors: [...sourceErrors, 'window_out_of_range', 'insufficient_credits', 'proof_allowance_exhausted', 'queue_unavailable'],
    example: oneOffExample,
  },
  'GET /v1/analyses': {
    operationId: 'listAnalyses',
    tag: 'Analyses',
    summary: 'List analyses of both kinds (newest first)',
    response: { status: 200, schema: 'AnalysisList', description: 'A page of analyses.' },
  },
  'GET /v1/analyses/{analysis_id}': {
    operationId: 'getAnalysis',
    tag: 'Analyses',
    summary: 'Get an analysis',
    response: { status: 200, schema: 'Analysis', description: 'Status, source, window, billing and terminal error.' },
  },
  'POST /v1/analyses/{analysis_id}/cancel': {
    operationId: 'cancelAnalysis',
    tag: 'Analyses',
    summary: 'Cancel queued work (refunded exactly once)',
    response: { status: 202, schema: 'Analysis', description: 'The canceled analysis.' },
    errors: ['analysis_not_cancelable'],
  },
  'GET /v1/analyses/{analysis_id}/moments': {
    operationId: 'listAnalysisMoments',
    tag: 'Analyses',
    summary: 'Get the ranked moments of a completed analysis',
    response: { status: 200, schema: 'MomentList', description: '`{analysis_id, count, moments}`; zero moments is a valid answer.' },
    errors: ['analysis_not_completed'],
  },
  'GET /v1/analyses/{analysis_id}/progress': {
    operationId: 'getAnalysisProgress',
    tag: 'Analyses',
    summary: 'Queue position and bounded progress',
    response: { status: 200, schema: 'AnalysisProgress', description: 'Where the analysis stands; `fraction` never goes down.' },
  },
  'POST /v1/scanner-batches': {
    operationId: 'createScannerBatch',
    tag: 'Scanner batches',
    summary: 'Submit up to 100 scanner/upload items',
    description:
      'Every item is checked now and pins the current scanner version; each becomes its own run, billed on its own. ' +
      'Idempotency-Key is required: retry under the same key, never resubmit the work under a new one.',
    response: { status: 202, schema: 'ScannerBatch', description: 'The accepted batch with its first page of items.' },
    errors: ['upload_not_found', 'upload_not_ready', 'scanner_batch_service_unavailable', 'queue_unavailable'],
    example: {
      items: [
        {
          client_id: 'ep-41',
          scanner_id: 'scn_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b',
          upload_id: 'upl_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b',
          metadata: { episode: 41 },
        },
        { client_id: 'ep-42', scanner_id: 'scn_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b', upload_id: 'upl_0193a4b1c2d37e8f9a0b1c2d3e4f5a6c' },
      ],
    },
  },
  'GET /v1/scanner-batches': {
    operationId: 'listScannerBatches',
    tag: 'Scanner batches',
    summary: 'List batch summaries (newest first, items not embedded)',
    response: { status: 200, schema: 'ScannerBatchSummaryList', description: 'A page of batch summaries.' },
  },
  'GET /v1/scanner-batches/{batch_id}': {
    operationId: 'getScannerBatch',
    tag: 'Scanner batches',
    summary: 'Get a batch with a page of its items',
    response: { status: 200, schema: 'ScannerBatch', description: 'Counters, one page of items and `items_next_cursor`.' },
  },
  'POST /v1/scanner-batches/{batch_id}/cancel': {
    operationId: 'cancelScannerBatch',
    tag: 'Scanner batches',
    summary: 'Cancel a batch: queued items never start, spawned ones drain',
    response: { status: 202, schema: 'ScannerBatchSummary', description: 'The batch, canceling or canceled.' },
    errors: ['batch_not_cancelable'],
  },
  'POST /v1/webhook-endpoints': {
    operationId: 'createWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'The URL must be HTTPS on a host that resolves to public addresses only, without credentials; it is checked now and at every delivery. ' +
      'The answer carries the signing secret, shown only here. Idempotency-Key is not honoured: after a timeout, list the endpoints to reconcile.',
    response: { status: 201, schema: 'WebhookEndpointWithSecret', description: 'The enabled endpoint and its signing secret.' },
    errors: ['webhook_endpoint_limit_reached', 'event_delivery_unavailable'],
    example: { url: 'https://hooks.example.com/media-scanner', events: ['run.completed', 'run.failed'], description: 'Production receiver' },
  },
  'GET /v1/webhook-endpoints': {
    operationId: 'listWebhookEndpoints',
    tag: 'Webhooks',
    summary: 'List webhook endpoints (newest first)',
    response: { status: 200, schema: 'WebhookEndpointList', description: 'A page of endpoints, without secrets.' },
  },
  'GET /v1/webhook-endpoints/{endpoint_id}': {
    operationId: 'getWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Get a webhook endpoint',
    response: { status: 200, schema: 'WebhookEndpoint', description: 'The endpoint, without its secret.' },
  },
  'PATCH /v1/webhook-endpoints/{endpoint_id}': {
    operationId: 'updateWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Change a webhook endpoint',
    description: "Any of `url`, `events`, `description` (null clears it) and `enabled`, at least one. A new URL is checked like a new endpoint's.",
    response: { status: 200, schema: 'WebhookEndpoint', description: 'The changed endpoint.' },
    example: { events: ['run.completed', 'run.failed', 'upload.ready'], enabled: true },
  },
  'DELETE /v1/webhook-endpoints/{endpoint_id}': {
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Delete a webhook endpoint',
    description: 'No event is delivered to it afterwards. A second delete answers 404.',
    response: { status: 200, schema: 'DeletedWebhookEndpoint', description: '`deleted: true`.' },
  },
  'POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret': {
    operationId: 'rotateWebhookEndpointSecret',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret',
    description:
      'The answer carries the new secret, shown only here. For 24 hours deliveries carry a signature under the new and the previous secret ' +
      '(space-separated in `webhook-signature`), so the receiver can switch without missing one.',
    response: { status: 200, schema: 'WebhookEndpointWithSecret', description: 'The endpoint and its new signing secret.' },
  },
  'POST /v1/webhook-endpoints/{endpoint_id}/test': {
    operationId: 'testWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Send a webhook.test event to this endpoint',
    description:
      'Delivered through the normal path to this endpoint only, whatever it subscribes to; `data.object` is the endpoint. Follow it at GET /v1/webhook-deliveries.',
    response: { status: 202, schema: 'WebhookTest', description: 'The event that was published.' },
    errors: ['event_delivery_unavailable'],
  },
  'GET /v1/webhook-deliveries': {
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List webhook deliveries (newest first)',
    description:
      'One delivery per event and endpoint, with every attempt: its time, the status code or error, the duration and the first 1 KiB of the answer. ' +
      'Filters (`endpoint_id`, `event_type`, `status`, `event_id`) combine with AND. Retries follow the Standard Webhooks schedule: ' +
      'at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later; then the delivery is failed. Kept for 30 days.',
    response: { status: 200, schema: 'WebhookDeliveryList', description: 'A page of deliveries.' },
  },
  'POST /v1/webhook-deliveries/{delivery_id}/retry': {
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Retry a failed webhook delivery',
    description:
      'One more attempt, now, with the same event id and body (and a fresh timestamp and signature); if it fails too, the delivery is failed again. ' +
      'Follow it in the delivery log.',
    response: { status: 202, schema: 'WebhookDelivery', description: 'The delivery, pending again.' },
    errors: ['delivery_not_retryable', 'event_delivery_unavailable'],
  },
  'GET /v1/render-presets': {
    operationId: 'getRenderPresets',
    tag: 'Renders',
    summary: 'List what renders can be asked for',
    description:
      'Formats, aspect ratios with their output sizes, caption presets and their fonts (shipped font files), effects and framing modes. Read these instead of hard-coding values.',
    response: { status: 200, schema: 'RenderPresets', description: 'The render presets.' },
  },
  'POST /v1/renders': {
    operationId: 'createRender',
    tag: 'Renders',
    summary: 'Render moments of a completed analysis (one MP4 each)',
    description:
      '1-20 video moment ids of one completed analysis. Renders cost no credits; the moments of a proof analysis render up to 60 s in total per account. ' +
      'Poll GET /v1/renders/{render_id} (or subscribe to render.completed / render.failed) for the assets.',
    response: { status: 202, schema: 'Render', description: 'The render, queued.' },
    errors: ['not_found', 'analysis_not_completed', 'moment_not_found', 'captions_unavailable', 'proof_allowance_exhausted', 'queue_unavailable'],
    example: {
      analysis_id: 'ana_0192f0c56f2a7c3e8a1b2c3d4e5f6a7b',
      moment_ids: ['mom_0192f0c56f2a7c3e8a1b2c3d4e5f6a7c'],
      render: { output: { format: 'mp4', aspect_ratio: '9:16' }, framing: { mode: 'auto' } },
    },
  },
  'GET /v1/renders': {
    operationId: 'listRenders',
    tag: 'Renders',
    summary: 'List renders (newest first)',
    response: { status: 200, schema: 'RenderList', description: 'A page of renders, each with fresh download URLs.' },
  },
  'GET /v1/renders/{render_id}': {
    operationId: 'getRender',
    tag: 'Renders',
    summary: 'Get a render and its assets',
    description: 'Each completed asset has a signed download URL valid for one hour (`url_expires_at`); GET again for a fresh one.',
    response: { status: 200, schema: 'Render', description: 'The render.' },
  },
  'GET /v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'This OpenAPI document',
    response: { status: 200, schema: 'OpenApiDocument', description: 'The OpenAPI 3.1 document of this API.' },
  },
} as const satisfies Record<RouteKey, Operation>;

/** One line per error code for the responses that list it; a new code in the catalog needs one here. */
export const errorDescriptions: Record<ErrorCode, string> = {
  validation_failed: 'the path, query, body or a header fails its schema; `param` names the field',
  upload_not_found: "the upload is unknown or another account's",
  upload_not_ready: 'the upload is not ready (pending, failed, expired or deleted)',
  window_not_supported: 'a window on anything but a video find_moments run',
  idempotency_key_required: 'no Idempotency-Key header',
  invalid_cursor: 'a tampered, foreign or stale cursor',
  unauthorized: 'the API key is missing, malformed, unknown or revoked',
  csrf_failed: 'console only: a change without the `X-CSRF-Token` header equal to the `msc_csrf` cookie',
  window_out_of_range: 'the window is outside the source, ends before it starts, or is over 7,200 s for a proof analysis',
  moment_not_found: 'a render names a moment that is not a video moment of that analysis; `param` is `moment_ids[i]`',
  captions_unavailable: 'captions were requested but no transcriber is configured, so there are no word timings',
  insufficient_credits: 'the wallet cannot cover the reservation',
  proof_allowance_exhausted: 'the account has used its proof analysis, or proof renders past 60 s in total',
  source_too_large: "the source is over the account's source-size limit",
  not_found: 'unknown, or owned by another account (indistinguishable)',
  analysis_not_completed: 'moments exist once the analysis is completed',
  run_not_completed: 'observations exist once the run is completed',
  analysis_not_cancelable: 'the analysis has started or ended',
  batch_not_cancelable: 'the batch has already settled',
  delivery_not_retryable: 'only a failed webhook delivery can be retried (and at most 100 attempts are kept)',
  idempotency_key_reused: 'the Idempotency-Key was used with a different request',
  idempotency_request_in_progress: 'the first request with this Idempotency-Key is still running; retry shortly',
  upload_object_missing: 'the bytes (or some multipart parts) are not there yet; safe to retry once they are',
  webhook_endpoint_limit_reached: 'the account has as many webhook endpoints as it may have; delete one first',
  request_timeout: 'the request did not arrive in time',
  payload_too_large: 'the body is over what the endpoint accepts',
  request_header_fields_too_large: 'the request line and headers are too large, or too many header lines',
  untrusted_source_url: 'neither a built-in provider nor an exact trusted host (private and loopback addresses are always refused)',
  source_unreadable: 'no decodable video at a permitted source',
  rate_limited: 'throttled, or too many concurrent changes; retry with backoff',
  internal_error: 'something failed on our side; it has been logged',
  queue_unavailable: 'the work could not be queued (its credits were refunded); retry with backoff',
  uploads_unavailable: 'this deployment cannot run production scanners',
  provider_unavailable: 'the provider page could not be resolved now (not within the time a request allows, or no yt-dlp); retry later',
  scanner_batch_service_unavailable: 'durable batch processing is not enabled; do not resubmit under new keys',
  event_delivery_unavailable: 'event delivery is off for this deployment or account; poll instead',
};
