import { listObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../shared/presenters.js';
import { presentObservation } from '../../shared/run-presenters.js';
import { observationsQuerySchema } from '../../schemas/run.js';
import { runs } from '../../composition/runs.js';

export const handler = httpHandler('api/observations/list', { query: observationsQuerySchema }, () => ({ runs: runs() }), async ({ accountId, query }, { runs }) => ({
  status: 200,
  body: presentList(await listObservations(runs, accountId, query), presentObservation),
}));
