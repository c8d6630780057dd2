import * as z from '../../shared/zod.js';
import { analyzeChunk } from '../../domain/runs/steps/analyze-chunk.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';
import { traced } from '../../composition/tracing.js';

export const handler = traced(
  taskHandler(z.extend(analysisRefSchema, { chunk: chunkSchema }), pipeline, ({ chunk, ...ref }, deps) => analyzeChunk(deps, ref, chunk)),
);
