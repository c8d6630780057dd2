import * as z from 'zod';
import { renderMoment } from '../../domain/renders/pipeline.js';
import { renderTask } from '../../composition/renders.js';
import { taskHandler } from '../task.js';

export const renderRefSchema = z.object({ accountId: z.string().min(1), renderId: z.string().min(1) });

/** The RenderMoment step (one Map item): the container task's whole work. */
export const renderMomentTask = taskHandler(renderRefSchema.extend({ momentId: z.string().min(1) }), renderTask, async (ref, { pipeline }) => ({
  asset: await renderMoment(pipeline, ref),
}));
