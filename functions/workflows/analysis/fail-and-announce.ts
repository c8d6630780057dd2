import { failRun } from '../../domain/runs/pipeline.js';
import type { AnalysisRef } from '../../domain/runs/ports.js';
import type { EventPublisher } from '../../domain/ports.js';
import type { PipelineDeps } from '../../domain/runs/pipeline.js';
import { announceEnd } from './announce.js';

/** Fails the run (one refund, slot back) and announces its end; repeats announce the same event ids. */
export async function failAndAnnounce(services: { pipeline: PipelineDeps; events: EventPublisher }, ref: AnalysisRef, failure: { Error?: string; Cause?: string } | undefined) {
  const run = await failRun(services.pipeline, ref, failure);
  await announceEnd(services, run);
  return { status: run.status };
}
