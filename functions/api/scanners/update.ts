import { requireAccount } from '../../domain/accounts/accounts.js';
import { updateScanner } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../resources/scanners/presenter.js';
import { scannerIdParams, scannerUpdateSchema } from '../../resources/scanners/request.js';
import { accounts } from '../../composition/accounts.js';
import { idempotent } from '../../composition/idempotency.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler(
  'api/scanners/update',
  { params: scannerIdParams, body: scannerUpdateSchema },
  () => ({ ...scanners(), accounts: accounts(), idempotent: idempotent() }),
  async ({ accountId, params, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    return { status: 200, body: presentScanner(await updateScanner(deps, account, params.scanner_id, body)) };
  },
);
