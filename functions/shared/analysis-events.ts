import type { ServiceEvent } from '../domain/ports.js';
import type { AnalysisRecord, RunRecord } from '../domain/runs/model.js';
import { terminalEvent } from '../domain/runs/pipeline.js';
import { presentAnalysis } from './analysis-presenters.js';
import { presentRun } from './run-presenters.js';

/**
 * The terminal events of ended work (DESIGN 8): run.completed|failed for a scanner run, and
 * analysis.completed|failed|canceled for every analysis. Ids are derived from the subject and the
 * type, so announcing again (a retried step) repeats the same ids, which consumers dedupe.
 */
export function terminalEventsOf(run: RunRecord, analysis: AnalysisRecord): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  if (!run.oneOff && (run.status === 'completed' || run.status === 'failed')) events.push(terminalEvent(`run.${run.status}`, run.runId, presentRun(run)));
  if (analysis.status === 'completed' || analysis.status === 'failed' || analysis.status === 'canceled') {
    events.push(terminalEvent(`analysis.${analysis.status}`, analysis.analysisId, presentAnalysis(analysis)));
  }
  return events;
}
