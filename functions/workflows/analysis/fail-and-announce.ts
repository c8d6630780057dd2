import { failRun, terminalEvent } from '../../domain/runs/pipeline.js';
import type { AnalysisRef } from '../../domain/runs/ports.js';
import { presentRun } from '../../shared/run-presenters.js';
import type { EventPublisher } from '../../domain/ports.js';
import type { PipelineDeps } from '../../domain/runs/pipeline.js';

/** Fails the run (one refund, slot back) and announces run.failed; repeats announce the same event id. */
export async function failAndAnnounce({ pipeline, events }: { pipeline: PipelineDeps; events: EventPublisher }, ref: AnalysisRef, failure: { Error?: string; Cause?: string } | undefined) {
  const run = await failRun(pipeline, ref, failure);
  if (run.status === 'failed') await events.publish(ref.accountId, terminalEvent('run.failed', run.runId, presentRun(run)));
  return { status: run.status };
}
