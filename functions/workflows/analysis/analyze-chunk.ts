import { analyzeChunk } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';

export const handler = taskHandler(analysisRefSchema.extend({ chunk: chunkSchema }), ({ chunk, ...ref }, { pipeline }) => analyzeChunk(pipeline, ref, chunk));
