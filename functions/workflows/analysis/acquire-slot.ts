import { z } from 'zod';
import { acquireSlot } from '../../domain/runs/scheduling.js';
import { analysisRefSchema, taskHandler } from '../task.js';

const input = analysisRefSchema.extend({ taskToken: z.string().min(1) });

/** Invoked with `.waitForTaskToken`: its return value is ignored, the grant sends the token back. */
export const handler = taskHandler(input, async ({ taskToken, ...ref }, { pipeline }) => {
  await acquireSlot(pipeline, ref, taskToken);
  return { armed: true };
});
