import { spawnItemRun } from '../../domain/batches/workflow.js';
import { batchItemRefSchema, taskHandler } from '../task.js';

export const handler = taskHandler(batchItemRefSchema, (ref, { batchWorkflow }) => spawnItemRun(batchWorkflow, ref));
