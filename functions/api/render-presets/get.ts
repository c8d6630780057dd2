import { httpHandler } from '../../http/handler.js';
import { presentRenderPresets } from '../../shared/render-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';

export const handler = httpHandler('api/render-presets/get', { query: noQuerySchema }, () => ({}), () =>
  Promise.resolve({ status: 200, body: presentRenderPresets() }),
);
