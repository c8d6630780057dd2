import { cancelAnalysis } from '../../domain/analyses/lifecycle.js';
import { httpHandler } from '../../http/handler.js';
import { presentAnalysis } from '../../resources/analyses/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { analysisIdParams } from '../../resources/analyses/request.js';
import { analysisCancellation } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/analyses/cancel',
  { params: analysisIdParams, query: noQuerySchema },
  analysisCancellation,
  async ({ accountId, params }, deps) => {
    const { analysis } = await cancelAnalysis(deps, accountId, params.analysis_id);
    return { status: 202, body: presentAnalysis(analysis) };
  },
);
