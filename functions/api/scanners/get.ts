import { getScanner } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../resources/scanners/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { scannerIdParams } from '../../resources/scanners/request.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler('api/scanners/get', { params: scannerIdParams, query: noQuerySchema }, scanners, async ({ accountId, params }, deps) => ({
  status: 200,
  body: presentScanner(await getScanner(deps, accountId, params.scanner_id)),
}));
