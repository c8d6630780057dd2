import { getScanner } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../http/presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { scannerIdParams } from '../../schemas/scanner.js';
import { scannerDeps } from './deps.js';

export const handler = httpHandler(
  'api/scanners/get',
  { params: scannerIdParams, query: noQuerySchema },
  async ({ accountId, params }, services) => ({
    status: 200,
    body: presentScanner(await getScanner(scannerDeps(services), accountId, params.scanner_id)),
  }),
);
