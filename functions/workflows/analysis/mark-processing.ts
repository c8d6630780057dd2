import { markProcessing } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';

export const handler = taskHandler(analysisRefSchema, (ref, { pipeline }) => markProcessing(pipeline, ref));
