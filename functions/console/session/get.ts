import { requireAccount } from '../../domain/accounts/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { consoleSession } from '../../composition/console.js';

/** GET /console/api/session: who is signed in, and on which host (the console shows how to sign in again). */
export const handler = httpHandler('console/session/get', { query: noQuerySchema }, consoleSession, async ({ accountId }, { accounts, host }) => {
  const account = await requireAccount(accounts, accountId);
  return { status: 200, body: { account_id: account.accountId, plan: account.plan, host } };
});
