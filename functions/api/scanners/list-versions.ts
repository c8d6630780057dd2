import { listScannerVersions } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { listQuerySchema, presentList } from '../../resources/common/list.js';
import { presentScanner } from '../../resources/scanners/presenter.js';
import { scannerIdParams } from '../../resources/scanners/request.js';
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
