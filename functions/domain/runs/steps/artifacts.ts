import type { Chunk } from '../model.js';
import type { AnalysisRef } from '../ports.js';

/** Under `artifacts/`, which the bucket's lifecycle expires after a day: they matter only while a run is in flight. */
export const artifactPrefix = (ref: AnalysisRef) => `artifacts/${ref.accountId}/${ref.analysisId}`;
/**
 * Fixed per chunk, so the step after extraction finds the signals without the extraction's
 * output: a container task (ecs:runTask.sync) cannot return one to the state machine.
 */
export const signalsKeyOf = (ref: AnalysisRef, chunk: Pick<Chunk, 'index'>) => `${artifactPrefix(ref)}/chunks/${chunk.index}/signals.json`;
