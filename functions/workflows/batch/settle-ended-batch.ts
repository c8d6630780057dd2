import { settleEndedBatch } from '../../domain/batches/workflow.js';
import { terminalEvent } from '../../domain/runs/pipeline.js';
import { presentBatchSummary } from '../../shared/batch-presenters.js';
import { batchRefSchema, executionEndedSchema, taskHandler } from '../task.js';
import { batchTask } from '../../composition/batches.js';

/** A batch whose execution ended early: its queued items fail (they will never start); once every item has settled it is announced. */
export const handler = taskHandler(executionEndedSchema(batchRefSchema), batchTask, async ({ detail }, { batchWorkflow, events }) => {
  const batch = await settleEndedBatch(batchWorkflow, detail.input);
  if (batch.completedAt) await events.publish(batch.accountId, terminalEvent('scanner_batch.completed', batch.batchId, presentBatchSummary(batch)));
  return { settled: batch.completedAt !== null };
});
