import { planBatch } from '../../domain/batches/workflow.js';
import { batchRefSchema, taskHandler } from '../task.js';
import { batchWorkflow } from '../../composition/batches.js';

export const handler = taskHandler(batchRefSchema, batchWorkflow, (ref, deps) => planBatch(deps, ref));
