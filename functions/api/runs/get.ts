import { getScannerRun } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentRun } from '../../resources/runs/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { runIdParams } from '../../resources/runs/request.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/runs/get',
  { params: runIdParams, query: noQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, params }, { runs }) => ({
    status: 200,
    body: presentRun(await getScannerRun(runs, accountId, params.run_id)),
  }),
);
