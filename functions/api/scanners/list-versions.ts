import { listScannerVersions } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../shared/presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { scannerIdParams } from '../../schemas/scanner.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler(
  'api/scanners/list-versions',
  { params: scannerIdParams, query: listQuerySchema },
  scanners,
  async ({ accountId, params, query }, deps) => ({
    status: 200,
    body: presentList(await listScannerVersions(deps, accountId, params.scanner_id, query), presentScanner),
  }),
);
