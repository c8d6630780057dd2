import { settleEndedBatch } from '../../domain/batches/workflow.js';
import { batchRefSchema, executionEndedSchema, taskHandler } from '../task.js';
import { batchWorkflow } from '../../composition/batches.js';

/** A batch whose execution ended early: its queued items fail (they will never start); once every item has settled it ends, announced through the outbox. */
export const handler = taskHandler(executionEndedSchema(batchRefSchema), batchWorkflow, async ({ detail }, deps) => {
  const batch = await settleEndedBatch(deps, detail.input);
  return { settled: batch.completedAt !== null };
});
