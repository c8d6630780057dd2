import * as z from '../../shared/zod.js';
import { extractChunkSignals } from '../../domain/runs/pipeline.js';
import { analysisTask } from '../../composition/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';

/** The ExtractChunkSignals step, shared by its function (traced) and the container task (no X-Ray daemon there). */
export const extractChunkSignalsTask = taskHandler(z.extend(analysisRefSchema, { chunk: chunkSchema }), analysisTask, ({ chunk, ...ref }, { pipeline }) =>
  extractChunkSignals(pipeline, ref, chunk),
);
