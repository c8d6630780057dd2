import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { idsFor, restartIfUnstarted, type IdClaims } from '../id-claims.js';
import { definitionOf, getScanner, type ScannerDeps } from '../scanners/scanners.js';
import type { Account } from '../accounts/model.js';
import type { Span } from '../engine/signals.js';
import { creditsFor, endAnnouncements, queuedAnalysis, queuedRun, type RunRecord } from './model.js';
import type { ReservationOutcome, RunStore, RunnableSource, RunnableSourceLookup, WorkflowStarter } from './ports.js';
import type { ScannerRecord } from '../scanners/model.js';
import type { Metadata } from '../metadata.js';
import type { BatchItemRef } from '../batches/model.js';

export interface SubmitRunDeps extends ScannerDeps {
  runs: RunStore;
  findSource: RunnableSourceLookup;
  workflows: WorkflowStarter;
  claims: IdClaims;
}

/** POST /v1/scanners/{scanner_id}/runs as validated at the edge; the window rules that need the scanner and the upload are checked here. */
export interface RunCreate {
  upload_id: string;
  analysis_start_seconds?: number | undefined;
  analysis_end_seconds?: number | undefined;
  metadata?: Metadata | undefined;
}

/** SPEC: a window only for video find_moments runs, both bounds or neither, inside the source. */
function windowOf(input: RunCreate, type: string, source: RunnableSource): Span | null {
  const { analysis_start_seconds: start, analysis_end_seconds: end } = input;
  if (start === undefined && end === undefined) return null;
  if (type !== 'find_moments' || source.mediaKind !== 'video') {
    throw new ApiError('window_not_supported', 'A window applies only to find_moments runs on video uploads.', start !== undefined ? 'analysis_start_seconds' : 'analysis_end_seconds');
  }
  if (start === undefined || end === undefined) {
    const missing = start === undefined ? 'analysis_start_seconds' : 'analysis_end_seconds';
    throw new ApiError('validation_failed', 'Send both analysis_start_seconds and analysis_end_seconds, or neither.', missing);
  }
  const window = { startMs: Math.round(start * 1000), endMs: Math.round(end * 1000) };
  if (window.startMs >= window.endMs) throw new ApiError('validation_failed', 'analysis_start_seconds must be before analysis_end_seconds.', 'analysis_start_seconds');
  if (window.endMs > source.durationMs) {
    throw new ApiError('validation_failed', `analysis_end_seconds is past the end of the upload (${source.durationMs / 1000} s).`, 'analysis_end_seconds');
  }
  return window;
}

/**
 * Accepts a run: pins the scanner version, checks the source, reserves credits atomically with the
 * run record, then starts the workflow. Under an Idempotency-Key the run's ids are claimed first,
 * so a retry of an attempt that died after its reservation finds that run and answers it,
 * charging nothing more (the reservation is the idempotent outcome).
 */
export async function submitRun(deps: SubmitRunDeps, account: Account, scannerId: string, input: RunCreate, idempotencyKey?: string): Promise<RunRecord> {
  const ids = await idsFor(deps.claims, account.accountId, 'run', idempotencyKey, () => ({ runId: newId('run'), analysisId: newId('analysis') }));
  const earlier = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, account.accountId, ids.runId);
  if (earlier) return earlier;
  const scanner = await getScanner(deps, account.accountId, scannerId);
  const source = await deps.findSource(account.accountId, input.upload_id);
  const window = windowOf(input, scanner.type, source);
  const created = await createRun(deps.runs, { accountId: account.accountId, scanner, source, window, metadata: input.metadata ?? {}, ids });
  if (created.outcome !== 'created') {
    // A concurrent attempt under the same key may have won the reservation: its run is the answer.
    const raced = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, account.accountId, ids.runId);
    if (raced) return raced;
    throw new ApiError('insufficient_credits', `This run needs ${created.run.credits} credit(s); the wallet cannot cover it.`);
  }
  await startOrRefund(deps, created.run);
  return created.run;
}

/** The run an earlier attempt under the same key created, its workflow started if that attempt could not. */
async function alreadyCreated(deps: Pick<SubmitRunDeps, 'runs' | 'workflows'>, accountId: string, runId: string): Promise<RunRecord | undefined> {
  const run = await deps.runs.getRun(accountId, runId);
  if (run) await restartIfUnstarted(run.status === 'queued', () => deps.workflows.startAnalysis({ accountId, runId, analysisId: run.analysisId }));
  return run;
}

/**
 * Starts the analysis workflow of accepted work. If it cannot be started the work fails and is
 * refunded at once, so no credits are ever held by work that will not happen.
 */
export async function startOrRefund(deps: Pick<SubmitRunDeps, 'runs' | 'workflows'>, run: RunRecord): Promise<void> {
  try {
    await deps.workflows.startAnalysis({ accountId: run.accountId, runId: run.runId, analysisId: run.analysisId });
  } catch (cause) {
    const now = nowIso();
    await deps.runs.failAndRefund(run, { code: 'queue_unavailable', message: 'The analysis could not be queued.' }, refundEntry(run), now, endAnnouncements(run, 'failed', now));
    throw new ApiError('queue_unavailable', 'The analysis could not be queued; its credits were refunded. Retry with backoff.', undefined, { cause });
  }
}

export interface NewRun {
  accountId: string;
  /** The scanner version the run pins. */
  scanner: ScannerRecord;
  source: RunnableSource;
  window: Span | null;
  metadata: Metadata;
  /** The batch item the run is spawned for: the item moves to processing in the same transaction. */
  batchItem?: BatchItemRef;
  /** The ids claimed under an Idempotency-Key; fresh ones otherwise. */
  ids?: { runId: string; analysisId: string };
}

/**
 * Creates a queued run and its analysis, reserving its credits in the same transaction (the one
 * way a run comes to exist, for POST runs and batch items alike). Starting its workflow is the
 * caller's next step.
 */
export async function createRun(runs: RunStore, spec: NewRun): Promise<{ outcome: ReservationOutcome; run: RunRecord }> {
  const { scanner, source, window } = spec;
  const credits = creditsFor(window ? window.endMs - window.startMs : source.durationMs);
  const now = nowIso();
  const run = queuedRun(
    {
      runId: spec.ids?.runId ?? newId('run'),
      accountId: spec.accountId,
      analysisId: spec.ids?.analysisId ?? newId('analysis'),
      scannerId: scanner.scannerId,
      scannerVersion: scanner.version,
      scanner: definitionOf(scanner),
      uploadId: source.uploadId,
      objectKey: source.objectKey,
      mediaKind: source.mediaKind,
      sourceDurationMs: source.durationMs,
      window,
      metadata: spec.metadata,
      credits,
      ...(spec.batchItem ? { batchItem: spec.batchItem } : {}),
    },
    now,
  );
  const analysis = queuedAnalysis(
    {
      analysisId: run.analysisId,
      accountId: spec.accountId,
      runId: run.runId,
      kind: 'scanner_run',
      source: { kind: 'upload', upload_id: source.uploadId, media_kind: source.mediaKind, duration_ms: source.durationMs },
      window,
      reservedCredits: credits,
    },
    now,
  );
  const outcome = await runs.createWithReservation(run, analysis, { entryId: newId('ledger'), credits: -credits, reason: `run_reserved:${run.runId}`, createdAt: now });
  return { outcome, run };
}

export const refundEntry = (run: RunRecord) => ({
  entryId: newId('ledger'),
  credits: run.credits,
  reason: `run_refunded:${run.runId}`,
  createdAt: nowIso(),
});

/** The work record behind an analysis, scanner run or one-off alike (the pipeline's view). */
export async function getRun(runs: RunStore, accountId: string, runId: string): Promise<RunRecord> {
  const run = await runs.getRun(accountId, runId);
  if (!run) throw notFound('run');
  return run;
}

/** A scanner run as the API shows it: a one-off analysis's internal work record is no run to a caller. */
export async function getScannerRun(runs: RunStore, accountId: string, runId: string): Promise<RunRecord> {
  const run = await getRun(runs, accountId, runId);
  if (run.oneOff) throw notFound('run');
  return run;
}
