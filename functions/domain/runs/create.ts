import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { definitionOf } from '../scanners/scanners.js';
import type { ScannerRecord } from '../scanners/model.js';
import type { Metadata } from '../metadata.js';
import type { Span } from '../engine/signals.js';
import { refundEntry } from './billing.js';
import { creditsFor, endAnnouncements, queuedAnalysis, queuedRun, type BatchItemRef, type RunRecord } from './model.js';
import type { ReservationOutcome, RunStore, RunnableSource, WorkflowStarter } from './ports.js';

interface NewRun {
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
  const outcome = await runs.createWithReservation(run, analysis, {
    entryId: newId('ledger'),
    credits: -credits,
    reason: `run_reserved:${run.runId}`,
    createdAt: now,
  });
  return { outcome, run };
}

/**
 * Starts the analysis workflow of accepted work. If it cannot be started the work fails and is
 * refunded at once, so no credits are ever held by work that will not happen.
 */
export async function startOrRefund(deps: { runs: RunStore; workflows: WorkflowStarter }, run: RunRecord): Promise<void> {
  try {
    await deps.workflows.startAnalysis({ accountId: run.accountId, runId: run.runId, analysisId: run.analysisId });
  } catch (cause) {
    const now = nowIso();
    await deps.runs.failAndRefund(
      run,
      { code: 'queue_unavailable', message: 'The analysis could not be queued.' },
      refundEntry(run),
      now,
      endAnnouncements(run, 'failed', now),
    );
    throw new ApiError('queue_unavailable', 'The analysis could not be queued; its credits were refunded. Retry with backoff.', undefined, { cause });
  }
}
