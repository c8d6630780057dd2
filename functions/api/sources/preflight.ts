import { requireAccount } from '../../domain/accounts.js';
import { preflightSource } from '../../domain/analyses/one-off.js';
import { httpHandler } from '../../http/handler.js';
import { presentPreflight } from '../../shared/analysis-presenters.js';
import { preflightSchema } from '../../schemas/analysis.js';
import { noQuerySchema } from '../../schemas/common.js';
import { oneOffAnalyses } from '../../composition/analyses.js';

export const handler = httpHandler('api/sources/preflight', { query: noQuerySchema, body: preflightSchema }, oneOffAnalyses, async ({ accountId, body }, deps) => {
  const account = await requireAccount(deps.accounts, accountId);
  return { status: 200, body: presentPreflight(await preflightSource(deps, account, body)) };
});
