import { listBatches } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../resources/batches/presenter.js';
import { presentList } from '../../resources/common/list.js';
import { batchListQuerySchema } from '../../resources/batches/request.js';
import { batches } from '../../composition/batches.js';

export const handler = httpHandler(
  'api/batches/list',
  { query: batchListQuerySchema },
  () => ({ batches: batches() }),
  async ({ accountId, query }, { batches }) => ({
    status: 200,
    body: presentList(await listBatches(batches, accountId, query), presentBatchSummary),
  }),
);
