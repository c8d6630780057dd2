import { planChunks } from '../../domain/runs/steps/plan-chunks.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

export const handler = taskHandler(analysisRefSchema, pipeline, (ref, deps) => planChunks(deps, ref));
