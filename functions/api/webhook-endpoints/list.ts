import { listWebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { listQuerySchema, presentList } from '../../resources/common/list.js';
import { presentWebhookEndpoint } from '../../resources/webhook-endpoints/presenter.js';
import { webhookEndpointStore } from '../../composition/webhooks.js';

/** GET /v1/webhook-endpoints: newest first, never a secret. */
export const handler = httpHandler(
  'api/webhook-endpoints/list',
  { query: listQuerySchema },
  () => ({ endpoints: webhookEndpointStore() }),
  async ({ accountId, query }, deps) => ({
    status: 200,
    body: presentList(await listWebhookEndpoints(deps, accountId, query), presentWebhookEndpoint),
  }),
);
