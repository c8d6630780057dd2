import { settleRender } from '../../domain/renders/pipeline.js';
import { renderTask } from '../../composition/renders.js';
import { taskHandler } from '../task.js';
import { renderRefSchema } from './render-moment-step.js';

/** Settles the render: final assets, status and render.completed|failed in one transaction. */
export const handler = taskHandler(renderRefSchema, renderTask, async (ref, { pipeline }) => ({ status: (await settleRender(pipeline, ref))?.status ?? 'missing' }));
