import { listAnalyses } from '../../domain/analyses/lifecycle.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../resources/common/list.js';
import { presentAnalysis } from '../../resources/analyses/presenter.js';
import { analysesQuerySchema } from '../../resources/analyses/request.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/analyses/list',
  { query: analysesQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, query }, { runs }) => ({
    status: 200,
    body: presentList(await listAnalyses(runs, accountId, query), presentAnalysis),
  }),
);
