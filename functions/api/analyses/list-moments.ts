import { listAnalysisMoments } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentMoments } from '../../http/run-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { analysisIdParams } from '../../schemas/run.js';

export const handler = httpHandler(
  'api/analyses/list-moments',
  { params: analysisIdParams, query: noQuerySchema },
  async ({ accountId, params }, { runs }) => {
    const { analysis, moments } = await listAnalysisMoments(runs, accountId, params.analysis_id);
    return { status: 200, body: presentMoments(analysis, moments) };
  },
);
