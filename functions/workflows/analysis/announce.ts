import type { EventPublisher } from '../../domain/ports.js';
import type { PipelineDeps } from '../../domain/runs/pipeline.js';
import type { RunRecord } from '../../domain/runs/model.js';
import { getAnalysis } from '../../domain/analyses/lifecycle.js';
import { terminalEventsOf } from '../../shared/analysis-events.js';

/** Publishes the terminal events of ended work, as its records now stand. */
export async function announceEnd({ pipeline, events }: { pipeline: PipelineDeps; events: EventPublisher }, run: RunRecord): Promise<void> {
  const analysis = await getAnalysis(pipeline.runs, run.accountId, run.analysisId);
  for (const event of terminalEventsOf(run, analysis)) await events.publish(run.accountId, event);
}
