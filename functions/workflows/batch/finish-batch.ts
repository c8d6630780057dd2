import * as z from 'zod';
import { finishBatch } from '../../domain/batches/workflow.js';
import { terminalEvent } from '../../domain/runs/pipeline.js';
import { presentBatchSummary } from '../../shared/batch-presenters.js';
import { batchRefSchema, taskHandler } from '../task.js';
import { batchTask } from '../../composition/batches.js';

/** `state.failure` is there when the fan-out itself failed (the Map's Catch). */
const input = batchRefSchema.extend({ state: z.object({ failure: z.unknown().optional() }) });

export const handler = taskHandler(input, batchTask, async ({ state, ...ref }, { batchWorkflow, events }) => {
  const batch = await finishBatch(batchWorkflow, ref, state.failure !== undefined);
  const summary = presentBatchSummary(batch);
  await events.publish(ref.accountId, terminalEvent('scanner_batch.completed', batch.batchId, summary));
  return { status: summary.status };
});
