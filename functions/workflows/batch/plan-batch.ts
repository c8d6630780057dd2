import { planBatch } from '../../domain/batches/workflow.js';
import { batchRefSchema, taskHandler } from '../task.js';

export const handler = taskHandler(batchRefSchema, (ref, { batchWorkflow }) => planBatch(batchWorkflow, ref));
