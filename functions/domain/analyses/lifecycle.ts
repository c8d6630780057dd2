import { ApiError, notFound } from '../errors.js';
import { firstIdAfter } from '../ids.js';
import { nowIso } from '../clock.js';
import type { Page, PageRequest } from '../pages.js';
import { endAnnouncements, type AnalysisKind, type AnalysisRecord, type AnalysisStatus, type RunRecord } from '../runs/model.js';
import type { RunStore, SlotStore, TaskTokenCallbacks } from '../runs/ports.js';
import { getRun } from '../runs/queries.js';
import { refundEntry } from '../runs/billing.js';

export async function getAnalysis(runs: RunStore, accountId: string, analysisId: string): Promise<AnalysisRecord> {
  const analysis = await runs.getAnalysis(accountId, analysisId);
  if (!analysis) throw notFound('analysis');
  return analysis;
}

/** GET /v1/analyses: a page, and filters combined with AND (each optional). */
interface AnalysesQuery extends PageRequest {
  status?: AnalysisStatus | undefined;
  kind?: AnalysisKind | undefined;
  /** ISO 8601. */
  created_after?: string | undefined;
}

/** The account's analyses, one-off and scanner-run alike, newest first, narrowed by any filter. */
export function listAnalyses(runs: RunStore, accountId: string, query: AnalysesQuery): Promise<Page<AnalysisRecord>> {
  const { status, kind, created_after } = query;
  const filtered = status !== undefined || kind !== undefined;
  return runs.listAnalyses(
    accountId,
    {
      fromId: created_after ? firstIdAfter('analysis', new Date(created_after)) : undefined,
      keep: filtered ? (a) => (status === undefined || a.status === status) && (kind === undefined || a.kind === kind) : undefined,
    },
    { limit: query.limit, cursor: query.cursor },
  );
}

export interface CancelDeps {
  runs: RunStore;
  slots: SlotStore;
  callbacks: TaskTokenCallbacks;
}

const canceledError = { code: 'analysis_canceled', message: 'The analysis was canceled before it started.' };

/**
 * SPEC: cancel stops queued work and refunds it exactly once (credits, or the proof claim); once
 * work has started or ended it is 409 analysis_not_cancelable. The cancel and the slot grant are
 * each one conditional transaction on the run still waiting, so exactly one of them wins.
 */
export async function cancelAnalysis(deps: CancelDeps, accountId: string, analysisId: string): Promise<{ analysis: AnalysisRecord; run: RunRecord }> {
  const analysis = await getAnalysis(deps.runs, accountId, analysisId);
  const run = await getRun(deps.runs, accountId, analysis.runId);
  const entry = await deps.slots.waitingEntry(accountId, run.runId);
  const now = nowIso();
  if (analysis.status !== 'queued' || !(await deps.runs.cancelQueued(run, canceledError, refundEntry(run), now, endAnnouncements(run, 'canceled', now)))) {
    const now = (await deps.runs.getAnalysis(accountId, analysisId))?.status ?? analysis.status;
    throw new ApiError('analysis_not_cancelable', `The analysis is ${now}; only queued work can be canceled.`);
  }
  // Its workflow may be waiting for a slot: wake it so it ends now. A failed wake-up is no error
  // of the cancel, which has taken effect: the wait's own timeout re-arms it, finds the run over
  // and ends it then, holding nothing meanwhile.
  if (entry?.taskToken) await deps.callbacks.succeed(entry.taskToken, { canceled: true }).catch(() => undefined);
  return { analysis: await getAnalysis(deps.runs, accountId, analysisId), run: await getRun(deps.runs, accountId, run.runId) };
}
