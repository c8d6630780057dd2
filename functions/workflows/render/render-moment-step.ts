import * as z from '../../shared/zod.js';
import { renderMoment } from '../../domain/renders/pipeline.js';
import { renderTask } from '../../composition/render-pipeline.js';
import { taskHandler } from '../task.js';
import { renderRefSchema } from './render-ref.js';

/** The RenderMoment step (one Map item): the container task's whole work. */
export const renderMomentTask = taskHandler(z.extend(renderRefSchema, { momentId: z.string().check(z.minLength(1)) }), renderTask, async (ref, { pipeline }) => ({
  asset: await renderMoment(pipeline, ref),
}));
