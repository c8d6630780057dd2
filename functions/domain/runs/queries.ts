import { ApiError, notFound } from '../errors.js';
import { firstIdAfter } from '../ids.js';
import type { MediaKind } from '../uploads/model.js';
import type { ScannerType } from '../scanners/model.js';
import type { EvidenceKind } from '../engine/observation-types.js';
import type { Page, PageRequest } from '../pages.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord } from './model.js';
import type { RunStore, SlotStore } from './ports.js';

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

/** A completed run's observations, in rank order; an empty list is then a meaningful answer. */
export async function listRunObservations(runs: RunStore, accountId: string, runId: string, page: PageRequest): Promise<Page<ObservationRecord>> {
  const run = await getScannerRun(runs, accountId, runId);
  if (run.status !== 'completed') {
    const state = run.status === 'failed' ? 'failed, so it has no observations' : `${run.status}; poll GET /v1/runs/${runId} until it is completed`;
    throw new ApiError('run_not_completed', `The run is ${state}.`);
  }
  return runs.listRunObservations(accountId, runId, page);
}

/** The ranked moments of a completed analysis (zero moments is a valid answer). */
export async function listAnalysisMoments(
  runs: RunStore,
  accountId: string,
  analysisId: string,
): Promise<{ analysis: AnalysisRecord; moments: MomentRecord[] }> {
  const analysis = await runs.getAnalysis(accountId, analysisId);
  if (!analysis) throw notFound('analysis');
  if (analysis.status !== 'completed') throw new ApiError('analysis_not_completed', `The analysis is ${analysis.status}; moments exist once it is completed.`);
  return { analysis, moments: await runs.listMoments(accountId, analysisId) };
}

/** GET /v1/observations: a page, and filters combined with AND (each optional). */
interface ObservationsQuery extends PageRequest {
  scanner_id?: string | undefined;
  scanner_version?: number | undefined;
  run_id?: string | undefined;
  type?: ScannerType | undefined;
  media_kind?: MediaKind | undefined;
  evidence_kind?: EvidenceKind | undefined;
  /** ISO 8601. */
  created_after?: string | undefined;
}

/** Observations across the account's runs, newest first, narrowed by any of the filters. */
export function listObservations(runs: RunStore, accountId: string, query: ObservationsQuery): Promise<Page<ObservationRecord>> {
  const { scanner_id, scanner_version, run_id, type, media_kind, evidence_kind, created_after } = query;
  const keep = (o: ObservationRecord) =>
    (scanner_id === undefined || o.scanner_id === scanner_id) &&
    (scanner_version === undefined || o.scanner_version === scanner_version) &&
    (run_id === undefined || o.run_id === run_id) &&
    (type === undefined || o.type === type) &&
    (media_kind === undefined || o.evidence.media_kind === media_kind) &&
    (evidence_kind === undefined || o.evidence.evidence_kind === evidence_kind);
  const filtered = [scanner_id, scanner_version, run_id, type, media_kind, evidence_kind].some((f) => f !== undefined);
  return runs.listAccountObservations(
    accountId,
    { fromId: created_after ? firstIdAfter('observation', new Date(created_after)) : undefined, keep: filtered ? keep : undefined },
    { limit: query.limit, cursor: query.cursor },
  );
}

export interface AnalysisProgress {
  analysis: AnalysisRecord;
  run: RunRecord;
  /** 1 for the next of the account's runs to be dispatched; null unless waiting. */
  queuePosition: number | null;
}

/** Where an analysis stands: its place in the account's queue, or its chunks done. */
export async function analysisProgress(deps: { runs: RunStore; slots: SlotStore }, accountId: string, analysisId: string): Promise<AnalysisProgress> {
  const analysis = await deps.runs.getAnalysis(accountId, analysisId);
  if (!analysis) throw notFound('analysis');
  const run = await getRun(deps.runs, accountId, analysis.runId);
  const queuePosition = run.status === 'queued' ? await deps.slots.queuePosition(accountId, run.runId) : null;
  return { analysis, run, queuePosition };
}
