import { listRunObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../http/presenters.js';
import { presentObservation } from '../../http/run-presenters.js';
import { listQuerySchema } from '../../schemas/common.js';
import { runIdParams } from '../../schemas/run.js';

export const handler = httpHandler(
  'api/runs/list-observations',
  { params: runIdParams, query: listQuerySchema },
  async ({ accountId, params, query }, { runs }) => ({
    status: 200,
    body: presentList(await listRunObservations(runs, accountId, params.run_id, query), presentObservation),
  }),
);
