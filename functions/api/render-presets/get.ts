import { httpHandler } from '../../http/handler.js';
import { presentRenderPresets } from '../../resources/renders/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';

export const handler = httpHandler(
  'api/render-presets/get',
  { query: noQuerySchema },
  () => ({}),
  () => Promise.resolve({ status: 200, body: presentRenderPresets() }),
);
