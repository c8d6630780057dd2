import { listObservations } from '../../domain/runs/queries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../http/presenters.js';
import { presentObservation } from '../../http/run-presenters.js';
import { observationsQuerySchema } from '../../schemas/run.js';

export const handler = httpHandler('api/observations/list', { query: observationsQuerySchema }, async ({ accountId, query }, { runs }) => ({
  status: 200,
  body: presentList(await listObservations(runs, accountId, query), presentObservation),
}));
