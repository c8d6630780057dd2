import { z } from 'zod';
import { analyzeChunk } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';

const input = analysisRefSchema.extend({ chunk: chunkSchema, signals: z.object({ signalsKey: z.string().min(1) }) });

export const handler = taskHandler(input, ({ chunk, signals, ...ref }, { pipeline }) => analyzeChunk(pipeline, ref, chunk, signals));
