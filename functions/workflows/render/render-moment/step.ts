import * as z from '../../../shared/zod.js';
import { renderMoment } from '../../../domain/renders/pipeline.js';
import { renderPipeline } from '../../../composition/render-pipeline.js';
import { taskHandler } from '../../task.js';
import { renderRefSchema } from '../render-ref.js';

/** The RenderMoment step (one Map item), run only as a container. */
export const step = taskHandler(z.extend(renderRefSchema, { momentId: z.string().check(z.minLength(1)) }), renderPipeline, async (ref, deps) => ({
  asset: await renderMoment(deps, ref),
}));
