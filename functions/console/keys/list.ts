import { httpHandler } from '../../http/handler.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { presentApiKey } from '../../resources/console/presenter.js';
import { accounts } from '../../composition/table.js';

/** GET /console/api/keys: the account's named keys, newest first (an account has few: no pages). */
export const handler = httpHandler(
  'console/keys/list',
  { query: noQuerySchema },
  () => ({ accounts: accounts() }),
  async ({ accountId }, deps) => ({ status: 200, body: { data: (await deps.accounts.listApiKeys(accountId)).map(presentApiKey) } }),
);
