import { z } from 'zod';
import { completeRun, terminalEvent } from '../../domain/runs/pipeline.js';
import { presentRun } from '../../http/run-presenters.js';
import { analysisRefSchema, taskHandler } from '../task.js';

const input = analysisRefSchema.extend({ persisted: z.object({ observationCount: z.int().min(0) }) });

export const handler = taskHandler(input, async ({ persisted, ...ref }, { pipeline, events }) => {
  const run = await completeRun(pipeline, ref, persisted.observationCount);
  await events.publish(ref.accountId, terminalEvent('run.completed', run.runId, presentRun(run)));
  return { status: run.status };
});
