import { settleRender } from '../../domain/renders/pipeline.js';
import { renderTask } from '../../composition/renders.js';
import { executionEndedSchema, taskHandler } from '../task.js';
import { renderRefSchema } from './render-moment-step.js';

/** A render whose execution ended early (failed, timed out, aborted): moments without an asset fail, and the render is settled and announced once. */
export const handler = taskHandler(executionEndedSchema(renderRefSchema), renderTask, async ({ detail }, { pipeline }) => ({
  status: (await settleRender(pipeline, detail.input))?.status ?? 'missing',
}));
