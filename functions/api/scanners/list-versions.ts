import { listScannerVersions } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentList, presentScanner } from '../../resources/uploads/presenter.js';
import { listQuerySchema } from '../../resources/common/fields.js';
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
