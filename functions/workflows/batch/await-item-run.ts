import * as z from '../../shared/zod.js';
import { awaitItemRun } from '../../domain/batches/workflow.js';
import { batchItemRefSchema, taskHandler } from '../task.js';
import { batchWorkflow } from '../../composition/batches.js';

const input = z.extend(batchItemRefSchema, { taskToken: z.string().check(z.minLength(1)) });

/** Invoked with `.waitForTaskToken`: its return value is ignored, the run's end sends the token back. */
export const handler = taskHandler(input, batchWorkflow, async ({ taskToken, ...ref }, deps) => {
  await awaitItemRun(deps, ref, taskToken);
  return { armed: true };
});
