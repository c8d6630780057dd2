import analysisDefinition from '../../statemachines/analysis.asl.json' with { type: 'json' };

/**
 * The most container tasks one run runs at once: its chunk Map's MaxConcurrency (a one-off
 * source's acquisition task runs before the Map, alone). Amazon Transcribe, where used, takes one
 * job per chunk, so as many jobs. Read from the state machine itself, so the two cannot disagree.
 */
export const runParallelTasks: number = analysisDefinition.States.AnalyzeChunks.MaxConcurrency;

/** The deployment's limits (cdk.json context, functions/config.ts): concurrent container tasks, and concurrent Transcribe jobs when Transcribe is used. */
export interface AdmissionLimits {
  containerTasks: number;
  transcribeJobs: number | null;
}

/**
 * Runs the deployment admits at once (DESIGN §6): each admitted run may run `runParallelTasks`
 * tasks (and jobs) at once, so the admitted runs never ask for more than the limits. Sizing by the
 * worst case wastes some capacity on short runs (one function step, no task) but cannot overrun.
 */
export function admittedRuns(limits: AdmissionLimits): number {
  const runsWithin = (limit: number) => Math.floor(limit / runParallelTasks);
  const runs = Math.min(runsWithin(limits.containerTasks), limits.transcribeJobs === null ? Infinity : runsWithin(limits.transcribeJobs));
  if (runs < 1)
    throw new Error(`Invalid configuration: the container task and Transcribe job limits must each be at least ${runParallelTasks} (one run's parallel tasks)`);
  return runs;
}
