import { requireAccount } from '../../domain/accounts/accounts.js';
import { quoteAnalysis } from '../../domain/analyses/one-off.js';
import { httpHandler } from '../../http/handler.js';
import { presentQuote } from '../../resources/analyses/presenter.js';
import { analysisCreateSchema } from '../../resources/analyses/request.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { sourceProbing } from '../../composition/sources.js';

export const handler = httpHandler(
  'api/analyses/quote',
  { query: noQuerySchema, body: analysisCreateSchema },
  sourceProbing,
  async ({ accountId, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    return { status: 200, body: presentQuote(await quoteAnalysis(deps, account, body)) };
  },
);
