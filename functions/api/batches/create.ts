import { submitBatch } from '../../domain/batches/submit.js';
import { requireAccount } from '../../domain/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatch } from '../../http/batch-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { batchCreateSchema, MAX_ITEM_PAGE } from '../../schemas/batch.js';

export const handler = httpHandler('api/batches/create', { query: noQuerySchema, body: batchCreateSchema }, async ({ accountId, body }, services) => ({
  status: 202,
  body: presentBatch(await submitBatch(services.batchSubmission, await requireAccount(services.accounts, accountId), body, MAX_ITEM_PAGE)),
}));
