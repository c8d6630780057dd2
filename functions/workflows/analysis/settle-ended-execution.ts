import { failRun } from '../../domain/runs/steps/end-run.js';
import { analysisRefSchema, executionEndedSchema, taskHandler } from '../task.js';
import { pipeline } from '../../composition/engine.js';

const errorOf = { FAILED: 'States.TaskFailed', TIMED_OUT: 'States.Timeout', ABORTED: 'States.Aborted' } as const;

/** A run whose execution ended is failed and refunded once, and its slot released; a run already settled is left as it is. */
export const handler = taskHandler(executionEndedSchema(analysisRefSchema), pipeline, async ({ detail }, deps) => ({
  status: (await failRun(deps, detail.input, { Error: errorOf[detail.status] })).status,
}));
