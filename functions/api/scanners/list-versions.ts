import { listScannerVersions } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../http/presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { scannerIdParams } from '../../schemas/scanner.js';
import { scannerDeps } from './deps.js';

export const handler = httpHandler(
  'api/scanners/list-versions',
  { params: scannerIdParams, query: listQuerySchema },
  async ({ accountId, params, query }, services) => ({
    status: 200,
    body: presentList(await listScannerVersions(scannerDeps(services), accountId, params.scanner_id, query), presentScanner),
  }),
);
