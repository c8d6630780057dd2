import * as z from 'zod';
import { renderMoment } from '../../domain/renders/pipeline.js';
import { renderTask } from '../../composition/render-pipeline.js';
import { taskHandler } from '../task.js';
import { renderRefSchema } from './render-ref.js';

/** The RenderMoment step (one Map item): the container task's whole work. */
export const renderMomentTask = taskHandler(renderRefSchema.extend({ momentId: z.string().min(1) }), renderTask, async (ref, { pipeline }) => ({
  asset: await renderMoment(pipeline, ref),
}));
