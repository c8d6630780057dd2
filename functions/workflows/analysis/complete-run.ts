import * as z from 'zod';
import { completeRun, terminalEvent } from '../../domain/runs/pipeline.js';
import { presentRun } from '../../shared/run-presenters.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';

const input = analysisRefSchema.extend({ persisted: z.object({ observationCount: z.int().min(0) }) });

export const handler = taskHandler(input, analysisTask, async ({ persisted, ...ref }, { pipeline, events }) => {
  const run = await completeRun(pipeline, ref, persisted.observationCount);
  await events.publish(ref.accountId, terminalEvent('run.completed', run.runId, presentRun(run)));
  return { status: run.status };
});
