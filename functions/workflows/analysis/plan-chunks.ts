import { planChunks } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';

export const handler = taskHandler(analysisRefSchema, (ref, { pipeline }) => planChunks(pipeline, ref));
