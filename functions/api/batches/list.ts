import { listBatches } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../http/batch-presenters.js';
import { presentList } from '../../http/presenters.js';
import { batchListQuerySchema } from '../../schemas/batch.js';

export const handler = httpHandler('api/batches/list', { query: batchListQuerySchema }, async ({ accountId, query }, { batches }) => ({
  status: 200,
  body: presentList(await listBatches(batches, accountId, query), presentBatchSummary),
}));
