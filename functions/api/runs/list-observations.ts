import { listRunObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { listQuerySchema, presentList } from '../../resources/common/list.js';
import { presentObservation } from '../../resources/observations/presenter.js';
import { runIdParams } from '../../resources/runs/request.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/runs/list-observations',
  { params: runIdParams, query: listQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, params, query }, { runs }) => ({
    status: 200,
    body: presentList(await listRunObservations(runs, accountId, params.run_id, query), presentObservation),
  }),
);
