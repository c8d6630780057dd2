import { submitBatch } from '../../domain/batches/submit.js';
import { requireAccount } from '../../domain/accounts/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatch } from '../../resources/batches/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { batchCreateSchema, MAX_ITEM_PAGE } from '../../resources/batches/request.js';
import { accounts } from '../../composition/accounts.js';
import { idempotent } from '../../composition/idempotency.js';
import { batchSubmission } from '../../composition/batches.js';

export const handler = httpHandler(
  'api/batches/create',
  { query: noQuerySchema, body: batchCreateSchema },
  () => ({ submission: batchSubmission(), accounts: accounts(), idempotent: idempotent() }),
  async ({ accountId, body, idempotencyKey }, deps) => ({
    status: 202,
    body: presentBatch(await submitBatch(deps.submission, await requireAccount(deps.accounts, accountId), body, MAX_ITEM_PAGE, idempotencyKey)),
  }),
);
