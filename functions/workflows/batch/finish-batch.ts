import * as z from '../../shared/zod.js';
import { finishBatch } from '../../domain/batches/workflow.js';
import { presentBatchSummary } from '../../resources/batches/presenter.js';
import { batchRefSchema, taskHandler } from '../task.js';
import { batchWorkflow } from '../../composition/batches.js';

/** `state.failure` is there when the fan-out itself failed (the Map's Catch). */
const input = z.extend(batchRefSchema, { state: z.object({ failure: z.optional(z.unknown()) }) });

/** Ends the batch; scanner_batch.completed goes into the outbox with it. */
export const handler = taskHandler(input, batchWorkflow, async ({ state, ...ref }, deps) => {
  const batch = await finishBatch(deps, ref, state.failure !== undefined);
  return { status: presentBatchSummary(batch).status };
});
