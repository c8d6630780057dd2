import { spawnItemRun } from '../../domain/batches/workflow.js';
import { batchItemRefSchema, taskHandler } from '../task.js';
import { batchTask } from '../../composition/batches.js';

export const handler = taskHandler(batchItemRefSchema, batchTask, (ref, { batchWorkflow }) => spawnItemRun(batchWorkflow, ref));
