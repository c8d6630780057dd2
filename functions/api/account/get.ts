import { requireAccount } from '../../domain/accounts/accounts.js';
import { httpHandler } from '../../http/handler.js';
import { presentAccount } from '../../resources/account/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { accounts } from '../../composition/accounts.js';
import { slots } from '../../composition/runs.js';
import { config } from '../../config.js';

export const handler = httpHandler(
  'api/account/get',
  { query: noQuerySchema },
  () => ({ accounts: accounts(), slots: slots(), cap: config().MAX_OBSERVATIONS_CAP, eventDelivery: config().EVENT_DELIVERY_ENABLED }),
  async ({ accountId }, { accounts, slots, cap, eventDelivery }) => {
    const [account, waitingRuns] = await Promise.all([requireAccount(accounts, accountId), slots.countWaiting(accountId)]);
    return { status: 200, body: presentAccount(account, cap, waitingRuns, eventDelivery) };
  },
);
