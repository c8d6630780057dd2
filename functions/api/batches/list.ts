import { listBatches } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../shared/batch-presenters.js';
import { presentList } from '../../shared/presenters.js';
import { batchListQuerySchema } from '../../schemas/batch.js';
import { batches } from '../../composition/batches.js';

export const handler = httpHandler('api/batches/list', { query: batchListQuerySchema }, () => ({ batches: batches() }), async ({ accountId, query }, { batches }) => ({
  status: 200,
  body: presentList(await listBatches(batches, accountId, query), presentBatchSummary),
}));
