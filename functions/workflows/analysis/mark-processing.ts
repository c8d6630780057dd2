import { markProcessing } from '../../domain/runs/steps/mark-processing.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

export const handler = taskHandler(analysisRefSchema, pipeline, (ref, deps) => markProcessing(deps, ref));
