import { getRender } from '../../domain/renders/create.js';
import { assetLinks } from '../../domain/renders/links.js';
import { httpHandler } from '../../http/handler.js';
import { presentRender } from '../../resources/renders/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { renderIdParams } from '../../resources/renders/request.js';
import { media } from '../../composition/media.js';
import { renders } from '../../composition/renders.js';

export const handler = httpHandler(
  'api/renders/get',
  { params: renderIdParams, query: noQuerySchema },
  () => ({ renders: renders(), media: media() }),
  async ({ accountId, params }, deps) => {
    const render = await getRender(deps.renders, accountId, params.render_id);
    return { status: 200, body: presentRender(render, await assetLinks(deps.media, render)) };
  },
);
