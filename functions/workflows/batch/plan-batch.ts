import { planBatch } from '../../domain/batches/workflow.js';
import { batchRefSchema, taskHandler } from '../task.js';
import { batchTask } from '../../composition/batches.js';

export const handler = taskHandler(batchRefSchema, batchTask, (ref, { batchWorkflow }) => planBatch(batchWorkflow, ref));
