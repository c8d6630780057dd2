import { requireAccount } from '../../domain/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { presentAccount } from '../../http/presenters.js';
import { noQuerySchema } from '../../schemas/common.js';

export const handler = httpHandler('api/account/get', { query: noQuerySchema }, async ({ accountId }, { accounts, config }) => ({
  status: 200,
  body: presentAccount(await requireAccount(accounts, accountId), config.MAX_OBSERVATIONS_CAP),
}));
