import * as z from '../../shared/zod.js';
import { analyzeChunk } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';
import { traced } from '../../composition/tracing.js';

export const handler = traced(
  taskHandler(z.extend(analysisRefSchema, { chunk: chunkSchema }), analysisTask, ({ chunk, ...ref }, { pipeline }) => analyzeChunk(pipeline, ref, chunk)),
);
