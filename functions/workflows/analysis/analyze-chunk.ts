import { analyzeChunk } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';

export const handler = taskHandler(analysisRefSchema.extend({ chunk: chunkSchema }), analysisTask, ({ chunk, ...ref }, { pipeline }) => analyzeChunk(pipeline, ref, chunk));
