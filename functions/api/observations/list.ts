import { listObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../resources/common/list.js';
import { presentObservation } from '../../resources/observations/presenter.js';
import { observationsQuerySchema } from '../../resources/observations/request.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler(
  'api/observations/list',
  { query: observationsQuerySchema },
  () => ({ runs: runs() }),
  async ({ accountId, query }, { runs }) => ({
    status: 200,
    body: presentList(await listObservations(runs, accountId, query), presentObservation),
  }),
);
