import { listRunObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../shared/presenters.js';
import { presentObservation } from '../../shared/run-presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { runIdParams } from '../../schemas/run.js';
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
