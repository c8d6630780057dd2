import { requireAccount } from '../../domain/accounts/accounts.js';
import { submitRun } from '../../domain/runs/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentRun } from '../../resources/runs/presenter.js';
import { runCreateSchema } from '../../resources/runs/request.js';
import { scannerIdParams } from '../../resources/scanners/request.js';
import { accounts } from '../../composition/accounts.js';
import { idempotent } from '../../composition/idempotency.js';
import { runSubmission } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/runs/create',
  { params: scannerIdParams, body: runCreateSchema },
  () => ({ ...runSubmission(), accounts: accounts(), idempotent: idempotent() }),
  async ({ accountId, params, body, idempotencyKey }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    const run = await submitRun(deps, account, params.scanner_id, body, idempotencyKey);
    return { status: 202, body: presentRun(run) };
  },
);
