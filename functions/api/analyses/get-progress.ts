import { analysisProgress } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentProgress } from '../../resources/analyses/presenter.js';
import { analysisIdParams } from '../../resources/analyses/request.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { runs, slots } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/analyses/get-progress',
  { params: analysisIdParams, query: noQuerySchema },
  () => ({ runs: runs(), slots: slots() }),
  async ({ accountId, params }, deps) => ({ status: 200, body: presentProgress(await analysisProgress(deps, accountId, params.analysis_id)) }),
);
