import { z } from 'zod';
import { failRun, terminalEvent } from '../../domain/runs/pipeline.js';
import { presentRun } from '../../http/run-presenters.js';
import { analysisRefSchema, taskHandler } from '../task.js';

const input = analysisRefSchema.extend({ failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional() });

export const handler = taskHandler(input, async ({ failure, ...ref }, { pipeline, events }) => {
  const run = await failRun(pipeline, ref, failure);
  await events.publish(ref.accountId, terminalEvent('run.failed', run.runId, presentRun(run)));
  return { status: run.status };
});
