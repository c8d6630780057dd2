import { analysisProgress } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentProgress } from '../../http/run-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { analysisIdParams } from '../../schemas/run.js';

export const handler = httpHandler(
  'api/analyses/get-progress',
  { params: analysisIdParams, query: noQuerySchema },
  async ({ accountId, params }, services) => ({ status: 200, body: presentProgress(await analysisProgress(services, accountId, params.analysis_id)) }),
);
