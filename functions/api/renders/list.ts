import { listRenders } from '../../domain/renders/create.js';
import { assetLinks } from '../../domain/renders/links.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../resources/common/list.js';
import { presentRender } from '../../resources/renders/presenter.js';
import { rendersQuerySchema } from '../../resources/renders/request.js';
import { media } from '../../composition/media.js';
import { renders } from '../../composition/renders.js';

export const handler = httpHandler(
  'api/renders/list',
  { query: rendersQuerySchema },
  () => ({ renders: renders(), media: media() }),
  async ({ accountId, query }, deps) => {
    const page = await listRenders(deps.renders, accountId, query);
    const links = await Promise.all(page.items.map((render) => assetLinks(deps.media, render)));
    return { status: 200, body: presentList(page, (render, index) => presentRender(render, links[index])) };
  },
);
