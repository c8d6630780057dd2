import * as z from '../../../shared/zod.js';
import { extractChunkSignals } from '../../../domain/runs/steps/extract-chunk-signals.js';
import { pipeline } from '../../../composition/engine.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../../task.js';

/** The ExtractChunkSignals step: a function for chunks planned with runner `lambda`, a container for runner `container`. */
export const step = taskHandler(z.extend(analysisRefSchema, { chunk: chunkSchema }), pipeline, ({ chunk, ...ref }, deps) =>
  extractChunkSignals(deps, ref, chunk),
);
