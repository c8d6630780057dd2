import { cancelBatch } from '../../domain/batches/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentBatchSummary } from '../../http/batch-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { batchIdParams } from '../../schemas/batch.js';

export const handler = httpHandler('api/batches/cancel', { params: batchIdParams, query: noQuerySchema }, async ({ accountId, params }, { batches }) => ({
  status: 202,
  body: presentBatchSummary(await cancelBatch(batches, { accountId, batchId: params.batch_id })),
}));
