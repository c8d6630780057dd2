import * as z from 'zod';
import { awaitItemRun } from '../../domain/batches/workflow.js';
import { batchItemRefSchema, taskHandler } from '../task.js';
import { batchTask } from '../../composition/batches.js';

const input = batchItemRefSchema.extend({ taskToken: z.string().min(1) });

/** Invoked with `.waitForTaskToken`: its return value is ignored, the run's end sends the token back. */
export const handler = taskHandler(input, batchTask, async ({ taskToken, ...ref }, { batchWorkflow }) => {
  await awaitItemRun(batchWorkflow, ref, taskToken);
  return { armed: true };
});
