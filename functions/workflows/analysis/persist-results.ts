import * as z from '../../shared/zod.js';
import { persistResults } from '../../domain/runs/steps/persist-results.js';
import { analysisRefSchema, chunkSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';
import { traced } from '../../composition/tracing.js';

const input = z.extend(analysisRefSchema, {
  chunkResults: z.array(
    z.object({ chunk: chunkSchema, signalsKey: z.string().check(z.minLength(1)), findingsKey: z.nullable(z.string().check(z.minLength(1))) }),
  ),
});

export const handler = traced(taskHandler(input, pipeline, ({ chunkResults, ...ref }, deps) => persistResults(deps, ref, chunkResults)));
