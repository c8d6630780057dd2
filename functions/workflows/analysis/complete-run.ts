import * as z from 'zod';
import { completeRun } from '../../domain/runs/pipeline.js';
import { analysisRefSchema, taskHandler } from '../task.js';
import { analysisTask } from '../../composition/pipeline.js';
import { announceEnd } from './announce.js';

const input = analysisRefSchema.extend({ persisted: z.object({ observationCount: z.int().min(0) }) });

export const handler = taskHandler(input, analysisTask, async ({ persisted, ...ref }, services) => {
  const run = await completeRun(services.pipeline, ref, persisted.observationCount);
  await announceEnd(services, run);
  return { status: run.status };
});
