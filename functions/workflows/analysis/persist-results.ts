import { z } from 'zod';
import { persistResults } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';

const input = analysisRefSchema.extend({ chunkResults: z.array(z.object({ chunk: chunkSchema, findingsKey: z.string().min(1) })) });

export const handler = taskHandler(input, ({ chunkResults, ...ref }, { pipeline }) => persistResults(pipeline, ref, chunkResults));
