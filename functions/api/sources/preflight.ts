import { requireAccount } from '../../domain/accounts/accounts.js';
import { preflightSource } from '../../domain/analyses/one-off.js';
import { httpHandler } from '../../http/handler.js';
import { presentPreflight } from '../../resources/analyses/presenter.js';
import { preflightSchema } from '../../resources/analyses/request.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { sourceProbing } from '../../composition/sources.js';

export const handler = httpHandler(
  'api/sources/preflight',
  { query: noQuerySchema, body: preflightSchema },
  sourceProbing,
  async ({ accountId, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    return { status: 200, body: presentPreflight(await preflightSource(deps, account, body)) };
  },
);
