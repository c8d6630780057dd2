import { nowIso } from '../../clock.js';
import { endAnnouncements, type RunRecord } from '../model.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { refundEntry } from '../billing.js';
import { releaseSlot } from '../scheduling.js';
import type { PipelineDeps } from './deps.js';

/** Settles billing, completes the run and frees its slot; a retry after success finds it completed and says so. */
export async function completeRun(deps: PipelineDeps, ref: AnalysisRef, observationCount: number): Promise<RunRecord> {
  const now = nowIso();
  await deps.runs.complete(ref, observationCount, now, endAnnouncements(await getRun(deps.runs, ref.accountId, ref.runId), 'completed', now));
  return settled(deps, ref);
}

/** After a run ends: its slot goes to the account's next waiting run, then whoever listens (its batch item, if any) is told. */
async function settled(deps: PipelineDeps, ref: AnalysisRef): Promise<RunRecord> {
  await releaseSlot(deps, ref);
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  await deps.onRunEnded(run);
  return run;
}

/** Stable, sanitised failure for the run record: internal causes never reach a response. */
function failureOf(error: { Error?: string; Cause?: string } | undefined): { code: string; message: string } {
  if (error?.Error === 'SignalExtractionError' || error?.Error === 'SourceUnreadable')
    return { code: 'source_unreadable', message: 'The source could not be decoded for analysis.' };
  if (error?.Error === 'SourceChanged')
    return { code: 'source_changed', message: 'The source changed since it was quoted: it is now shorter than the analysed window.' };
  if (error?.Error === 'TranscriptionFailed' || error?.Error === 'TranscriptionNotReady') {
    return { code: 'transcription_failed', message: 'The speech in the source could not be transcribed.' };
  }
  if (error?.Error === 'States.Timeout') return { code: 'analysis_timeout', message: 'The analysis took too long and was stopped.' };
  if (error?.Error === 'States.Aborted') return { code: 'analysis_aborted', message: 'The analysis was stopped before it finished.' };
  return { code: 'analysis_failed', message: 'The analysis failed on our side.' };
}

/** Marks the run failed and refunds it exactly once (a repeat finds it terminal and refunds nothing). */
export async function failRun(deps: PipelineDeps, ref: AnalysisRef, failure: { Error?: string; Cause?: string } | undefined): Promise<RunRecord> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  const now = nowIso();
  await deps.runs.failAndRefund(run, failureOf(failure), refundEntry(run), now, endAnnouncements(run, 'failed', now));
  return settled(deps, ref);
}
