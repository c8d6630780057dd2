import * as z from '../../shared/zod.js';
import { completeRun } from '../../domain/runs/steps/end-run.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

const input = z.extend(analysisRefSchema, { persisted: z.object({ observationCount: z.int().check(z.minimum(0)) }) });

/** Completes the run; its terminal events go into the outbox in the same transaction. */
export const handler = taskHandler(input, pipeline, async ({ persisted, ...ref }, deps) => {
  const run = await completeRun(deps, ref, persisted.observationCount);
  return { status: run.status };
});
