import { requireAccount } from '../../domain/accounts/accounts.js';
import { createWebhookEndpoint } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookEndpointWithSecret } from '../../resources/webhook-endpoints/presenter.js';
import { webhookEndpointCreateSchema } from '../../resources/webhook-endpoints/request.js';
import { accounts } from '../../composition/accounts.js';
import { webhookEndpoints } from '../../composition/webhooks.js';

/** POST /v1/webhook-endpoints: the endpoint and its signing secret, shown this once. */
export const handler = httpHandler(
  'api/webhook-endpoints/create',
  { body: webhookEndpointCreateSchema },
  () => ({ ...webhookEndpoints(), accounts: accounts() }),
  async ({ accountId, body }, deps) => {
    const account = await requireAccount(deps.accounts, accountId);
    const { endpoint, secret } = await createWebhookEndpoint(deps, account, body);
    return { status: 201, body: presentWebhookEndpointWithSecret(endpoint, secret) };
  },
);
