import * as z from '../../shared/zod.js';
import { failRun } from '../../domain/runs/steps/end-run.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

const input = z.extend(analysisRefSchema, { failure: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })) });

/** Fails the run (one refund, slot back); its terminal events go into the outbox with the failure. */
export const handler = taskHandler(input, pipeline, async ({ failure, ...ref }, deps) => ({ status: (await failRun(deps, ref, failure)).status }));
