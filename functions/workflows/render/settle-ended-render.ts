import { settleRender } from '../../domain/renders/pipeline.js';
import { renderSettlement } from '../../composition/renders.js';
import { executionEndedSchema, taskHandler } from '../task.js';
import { renderRefSchema } from './render-ref.js';

/** A render whose execution ended early (failed, timed out, aborted): moments without an asset fail, and the render is settled and announced once. */
export const handler = taskHandler(executionEndedSchema(renderRefSchema), renderSettlement, async ({ detail }, deps) => ({
  status: (await settleRender(deps, detail.input))?.status ?? 'missing',
}));
