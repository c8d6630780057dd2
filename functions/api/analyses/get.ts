import { getAnalysis } from '../../domain/analyses/lifecycle.js';
import { httpHandler } from '../../http/handler.js';
import { presentAnalysis } from '../../resources/analyses/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { analysisIdParams } from '../../resources/analyses/request.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/analyses/get',
  { params: analysisIdParams, query: noQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, params }, { runs }) => ({
    status: 200,
    body: presentAnalysis(await getAnalysis(runs, accountId, params.analysis_id)),
  }),
);
