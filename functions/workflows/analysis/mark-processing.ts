import { markProcessing } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';

export const handler = taskHandler(analysisRefSchema, analysisTask, (ref, { pipeline }) => markProcessing(pipeline, ref));
