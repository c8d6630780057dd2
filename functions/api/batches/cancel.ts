import { cancelBatch } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../shared/batch-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { batchIdParams } from '../../schemas/batch.js';
import { batches } from '../../composition/batches.js';

export const handler = httpHandler('api/batches/cancel', { params: batchIdParams, query: noQuerySchema }, () => ({ batches: batches() }), async ({ accountId, params }, { batches }) => ({
  status: 202,
  body: presentBatchSummary(await cancelBatch(batches, { accountId, batchId: params.batch_id })),
}));
