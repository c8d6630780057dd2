import { listAnalysisMoments } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentMoments } from '../../resources/analyses/presenter.js';
import { analysisIdParams } from '../../resources/analyses/request.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/analyses/list-moments',
  { params: analysisIdParams, query: noQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, params }, { runs }) => {
    const { analysis, moments } = await listAnalysisMoments(runs, accountId, params.analysis_id);
    return { status: 200, body: presentMoments(analysis, moments) };
  },
);
