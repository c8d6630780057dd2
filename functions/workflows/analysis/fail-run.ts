import * as z from 'zod';
import { failRun } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';

const input = analysisRefSchema.extend({ failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional() });

/** Fails the run (one refund, slot back); its terminal events go into the outbox with the failure. */
export const handler = taskHandler(input, analysisTask, async ({ failure, ...ref }, services) => ({ status: (await failRun(services.pipeline, ref, failure)).status }));
