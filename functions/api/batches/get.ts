import { viewBatch } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatch } from '../../resources/batches/presenter.js';
import { batchDetailQuerySchema, batchIdParams } from '../../resources/batches/request.js';
import { batches } from '../../composition/batches.js';

export const handler = httpHandler(
  'api/batches/get',
  { params: batchIdParams, query: batchDetailQuerySchema },
  () => ({ batches: batches() }),
  async ({ accountId, params, query }, { batches }) => ({
    status: 200,
    body: presentBatch(await viewBatch(batches, accountId, params.batch_id, query.item_cursor, query.item_limit)),
  }),
);
