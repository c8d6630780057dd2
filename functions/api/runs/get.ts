import { getRun } from '../../domain/runs/submit.js';
import { httpHandler } from '../../http/handler.js';
import { presentRun } from '../../http/run-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { runIdParams } from '../../schemas/run.js';

export const handler = httpHandler('api/runs/get', { params: runIdParams, query: noQuerySchema }, async ({ accountId, params }, { runs }) => ({
  status: 200,
  body: presentRun(await getRun(runs, accountId, params.run_id)),
}));
