import * as z from '../../shared/zod.js';
import { acquireSlot } from '../../domain/runs/scheduling.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

const input = z.extend(analysisRefSchema, { taskToken: z.string().check(z.minLength(1)) });

/** Invoked with `.waitForTaskToken`: its return value is ignored, the grant sends the token back. */
export const handler = taskHandler(input, pipeline, async ({ taskToken, ...ref }, deps) => {
  await acquireSlot(deps, ref, taskToken);
  return { armed: true };
});
