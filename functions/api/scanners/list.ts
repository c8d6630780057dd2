import { listScanners } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../shared/presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler('api/scanners/list', { query: listQuerySchema }, scanners, async ({ accountId, query }, deps) => ({
  status: 200,
  body: presentList(await listScanners(deps, accountId, query), presentScanner),
}));
