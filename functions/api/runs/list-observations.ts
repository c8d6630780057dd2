import { listRunObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../resources/uploads/presenter.js';
import { presentObservation } from '../../resources/runs/presenter.js';
import { listQuerySchema } from '../../resources/common/fields.js';
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
