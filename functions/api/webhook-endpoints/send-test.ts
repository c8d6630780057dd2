import { requireAccount } from '../../domain/accounts/accounts.js';
import { sendTestEvent } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookTest } from '../../resources/webhook-endpoints/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { webhookEndpointIdParams } from '../../resources/webhook-endpoints/request.js';
import { accounts } from '../../composition/accounts.js';
import { webhookEndpoints } from '../../composition/webhooks.js';

/** POST /v1/webhook-endpoints/{endpoint_id}/test: a `webhook.test` event for this endpoint, delivered like any other. */
export const handler = httpHandler(
  'api/webhook-endpoints/send-test',
  { params: webhookEndpointIdParams, query: noQuerySchema },
  () => ({ ...webhookEndpoints(), accounts: accounts() }),
  async ({ accountId, params }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    const { endpoint, event } = await sendTestEvent(deps, account, params.endpoint_id);
    return { status: 202, body: presentWebhookTest(endpoint, event) };
  },
);
