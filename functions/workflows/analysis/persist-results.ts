import * as z from 'zod';
import { persistResults } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';
import { traced } from '../../shared/tracer.js';

const input = analysisRefSchema.extend({ chunkResults: z.array(z.object({ chunk: chunkSchema, signalsKey: z.string().min(1), findingsKey: z.string().min(1).nullable() })) });

export const handler = traced(
  taskHandler(input, analysisTask, ({ chunkResults, ...ref }, { pipeline }) => persistResults(pipeline, ref, chunkResults)),
);
