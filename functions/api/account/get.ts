import { requireAccount } from '../../domain/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { presentAccount } from '../../http/presenters.js';
import { noQuerySchema } from '../../schemas/common.js';

export const handler = httpHandler('api/account/get', { query: noQuerySchema }, async ({ accountId }, { accounts, slots, config }) => {
  const [account, waitingRuns] = await Promise.all([requireAccount(accounts, accountId), slots.countWaiting(accountId)]);
  return { status: 200, body: presentAccount(account, config.MAX_OBSERVATIONS_CAP, waitingRuns) };
});
