import { spawnItemRun } from '../../domain/batches/workflow.js';
import { batchItemRefSchema, taskHandler } from '../task.js';
import { batchWorkflow } from '../../composition/batches.js';

export const handler = taskHandler(batchItemRefSchema, batchWorkflow, (ref, deps) => spawnItemRun(deps, ref));
