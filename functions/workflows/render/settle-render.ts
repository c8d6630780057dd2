import { settleRender } from '../../domain/renders/pipeline.js';
import { renderSettlement } from '../../composition/renders.js';
import { taskHandler } from '../task.js';
import { renderRefSchema } from './render-ref.js';

/** Settles the render: final assets, status and render.completed|failed in one transaction. */
export const handler = taskHandler(renderRefSchema, renderSettlement, async (ref, deps) => ({ status: (await settleRender(deps, ref))?.status ?? 'missing' }));
