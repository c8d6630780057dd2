import createClient, { type Client } from 'openapi-fetch';
import { systemClock, type Clock } from './clock.js';
import { MediaScannerError } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { Analysis, AnalysisProgress, Run, ScannerBatch, Upload, paths } from './schema.js';
import { uploadFile, type UploadOptions, type UploadSource } from './upload.js';
import { pollUntil, terminalAnalysisStatuses, terminalBatchStatuses, terminalRunStatuses, type WaitOptions } from './wait.js';

export interface ClientOptions {
  /** `sk_live_…` or `sk_test_…`; sent as `Authorization: Bearer`. Keep it on servers. */
  apiKey: string;
  /** @default http://127.0.0.1:4000 (the local host) */
  baseUrl?: string;
  /** @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
  /** @default the system clock; tests pass a fake one */
  clock?: Clock;
}

/** What every openapi-fetch call answers. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful call, or the API's error envelope thrown as MediaScannerError. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw MediaScannerError.from(response, error);
  return data;
}

export interface MediaScannerClient {
  /** Every operation of openapi.json, typed: `api.GET('/v1/runs/{run_id}', { params: { path: { run_id } } })`. */
  api: Client<paths>;
  /** SPEC "Upload flow" in one call; see uploadFile. */
  uploadFile(source: UploadSource, options?: UploadOptions): Promise<Upload>;
  /** Polls the run every 5-10 s until completed or failed; `onProgress` gets /progress at each poll. */
  waitForRun(runId: string, options?: WaitOptions<Run> & { onProgress?: (progress: AnalysisProgress) => void }): Promise<Run>;
  /** Polls the analysis until completed, failed or canceled. */
  waitForAnalysis(analysisId: string, options?: WaitOptions<Analysis> & { onProgress?: (progress: AnalysisProgress) => void }): Promise<Analysis>;
  /** Polls the batch (its counters, one item) until it settles: completed, partial, failed or canceled. */
  waitForBatch(batchId: string, options?: WaitOptions<ScannerBatch>): Promise<ScannerBatch>;
}

export function createMediaScannerClient(options: ClientOptions): MediaScannerClient {
  const clock = options.clock ?? systemClock;
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({
    baseUrl: (options.baseUrl ?? 'http://127.0.0.1:4000').replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(fetchImpl, clock, options.retry),
  });
  const progressOf = (analysisId: string) => unwrap(api.GET('/v1/analyses/{analysis_id}/progress', { params: { path: { analysis_id: analysisId } } }));

  return {
    api,
    uploadFile: (source, uploadOptions) =>
      uploadFile(
        {
          create: (body) => unwrap(api.POST('/v1/uploads', { body })),
          complete: (uploadId) => unwrap(api.POST('/v1/uploads/{upload_id}/complete', { params: { path: { upload_id: uploadId } } })),
          fetch: fetchImpl,
          clock,
          retry: options.retry ?? {},
        },
        source,
        uploadOptions,
      ),
    waitForRun: (runId, waitOptions = {}) =>
      pollUntil(
        async () => {
          const run = await unwrap(api.GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } }));
          if (waitOptions.onProgress && !terminalRunStatuses.has(run.status)) waitOptions.onProgress(await progressOf(run.analysis_id));
          return run;
        },
        (run) => terminalRunStatuses.has(run.status),
        clock,
        waitOptions,
      ),
    waitForAnalysis: (analysisId, waitOptions = {}) =>
      pollUntil(
        async () => {
          const analysis = await unwrap(api.GET('/v1/analyses/{analysis_id}', { params: { path: { analysis_id: analysisId } } }));
          if (waitOptions.onProgress && !terminalAnalysisStatuses.has(analysis.status)) waitOptions.onProgress(await progressOf(analysisId));
          return analysis;
        },
        (analysis) => terminalAnalysisStatuses.has(analysis.status),
        clock,
        waitOptions,
      ),
    waitForBatch: (batchId, waitOptions) =>
      pollUntil(
        () => unwrap(api.GET('/v1/scanner-batches/{batch_id}', { params: { path: { batch_id: batchId }, query: { item_limit: '1' } } })),
        (batch) => terminalBatchStatuses.has(batch.status),
        clock,
        waitOptions,
      ),
  };
}
