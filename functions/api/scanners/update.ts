import { requireAccount } from '../../domain/accounts.js';
import { updateScanner } from '../../domain/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../http/presenters.js';
import { scannerIdParams, scannerUpdateSchema } from '../../schemas/scanner.js';
import { scannerDeps } from './deps.js';

export const handler = httpHandler(
  'api/scanners/update',
  { params: scannerIdParams, body: scannerUpdateSchema },
  async ({ accountId, params, body }, services) => {
    const account = await requireAccount(services.accounts, accountId);
    return { status: 200, body: presentScanner(await updateScanner(scannerDeps(services), account, params.scanner_id, body)) };
  },
);
