import { requireAccount } from '../../domain/accounts/accounts.js';
import { createScanner } from '../../domain/scanners/scanners.js';
import { httpHandler } from '../../http/handler.js';
import { presentScanner } from '../../resources/scanners/presenter.js';
import { scannerCreateSchema } from '../../resources/scanners/request.js';
import { accounts } from '../../composition/accounts.js';
import { idempotent } from '../../composition/idempotency.js';
import { scanners } from '../../composition/scanners.js';

export const handler = httpHandler(
  'api/scanners/create',
  { body: scannerCreateSchema },
  () => ({ ...scanners(), accounts: accounts(), idempotent: idempotent() }),
  async ({ accountId, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    return { status: 201, body: presentScanner(await createScanner(deps, account, body)) };
  },
);
