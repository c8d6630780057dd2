import { cancelBatch } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../resources/batches/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { batchIdParams } from '../../resources/batches/request.js';
import { batches } from '../../composition/batches.js';

export const handler = httpHandler(
  'api/batches/cancel',
  { params: batchIdParams, query: noQuerySchema },
  () => ({ batches: batches() }),
  async ({ accountId, params }, { batches }) => ({
    status: 202,
    body: presentBatchSummary(await cancelBatch(batches, { accountId, batchId: params.batch_id })),
  }),
);
