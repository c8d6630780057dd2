import { ApiError, notFound } from '../errors.js';
import type { Page, PageRequest } from '../ports.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord } from './model.js';
import type { RunStore } from './ports.js';
import { getRun } from './submit.js';

/** A completed run's observations, in rank order; an empty list is then a meaningful answer. */
export async function listRunObservations(runs: RunStore, accountId: string, runId: string, page: PageRequest): Promise<Page<ObservationRecord>> {
  const run = await getRun(runs, accountId, runId);
  if (run.status !== 'completed') {
    const state = run.status === 'failed' ? 'failed, so it has no observations' : `${run.status}; poll GET /v1/runs/${runId} until it is completed`;
    throw new ApiError('run_not_completed', `The run is ${state}.`);
  }
  return runs.listRunObservations(accountId, runId, page);
}

/** The ranked moments of a completed analysis (zero moments is a valid answer). */
export async function listAnalysisMoments(runs: RunStore, accountId: string, analysisId: string): Promise<{ analysis: AnalysisRecord; moments: MomentRecord[] }> {
  const analysis = await runs.getAnalysis(accountId, analysisId);
  if (!analysis) throw notFound('analysis');
  if (analysis.status !== 'completed') throw new ApiError('analysis_not_completed', `The analysis is ${analysis.status}; moments exist once it is completed.`);
  return { analysis, moments: await runs.listMoments(accountId, analysisId) };
}
