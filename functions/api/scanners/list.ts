import { listScanners } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../http/presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { scannerDeps } from './deps.js';

export const handler = httpHandler('api/scanners/list', { query: listQuerySchema }, async ({ accountId, query }, services) => ({
  status: 200,
  body: presentList(await listScanners(scannerDeps(services), accountId, query), presentScanner),
}));
