import { httpHandler } from '../../http/handler.js';
import { listQuerySchema, presentList } from '../../resources/common/list.js';
import { presentLedgerEntry } from '../../resources/console/presenter.js';
import { accounts } from '../../composition/table.js';

/** GET /console/api/ledger: the wallet's entries, newest first, in the API's list envelope and signed cursors. */
export const handler = httpHandler(
  'console/account/list-ledger',
  { query: listQuerySchema },
  () => ({ accounts: accounts() }),
  async ({ accountId, query }, deps) => ({ status: 200, body: presentList(await deps.accounts.listLedger(accountId, query), presentLedgerEntry) }),
);
