import * as z from '../../shared/zod.js';
import { completeRun } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';

const input = z.extend(analysisRefSchema, { persisted: z.object({ observationCount: z.int().check(z.minimum(0)) }) });

/** Completes the run; its terminal events go into the outbox in the same transaction. */
export const handler = taskHandler(input, analysisTask, async ({ persisted, ...ref }, services) => {
  const run = await completeRun(services.pipeline, ref, persisted.observationCount);
  return { status: run.status };
});
