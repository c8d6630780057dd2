import { listScanners } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../resources/uploads/presenter.js';
import { listQuerySchema } from '../../resources/common/fields.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler('api/scanners/list', { query: listQuerySchema }, scanners, async ({ accountId, query }, deps) => ({
  status: 200,
  body: presentList(await listScanners(deps, accountId, query), presentScanner),
}));
