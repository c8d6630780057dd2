import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { idsFor, restartIfUnstarted, type IdClaims } from '../id-claims.js';
import { getScanner, type ScannerDeps } from '../scanners/scanners.js';
import type { Account } from '../accounts/model.js';
import type { Metadata } from '../metadata.js';
import type { Span } from '../engine/signals.js';
import { createRun, startOrRefund } from './create.js';
import type { RunRecord } from './model.js';
import type { RunStore, RunnableSource, RunnableSourceLookup, WorkflowStarter } from './ports.js';

export interface SubmitRunDeps extends ScannerDeps {
  runs: RunStore;
  findSource: RunnableSourceLookup;
  workflows: WorkflowStarter;
  claims: IdClaims;
}

/** POST /v1/scanners/{scanner_id}/runs as validated at the edge; the window rules that need the scanner and the upload are checked here. */
interface RunCreate {
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
    throw new ApiError(
      'window_not_supported',
      'A window applies only to find_moments runs on video uploads.',
      start !== undefined ? 'analysis_start_seconds' : 'analysis_end_seconds',
    );
  }
  if (start === undefined || end === undefined) {
    const missing = start === undefined ? 'analysis_start_seconds' : 'analysis_end_seconds';
    throw new ApiError('validation_failed', 'Send both analysis_start_seconds and analysis_end_seconds, or neither.', missing);
  }
  const window = { startMs: Math.round(start * 1000), endMs: Math.round(end * 1000) };
  if (window.startMs >= window.endMs)
    throw new ApiError('validation_failed', 'analysis_start_seconds must be before analysis_end_seconds.', 'analysis_start_seconds');
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
