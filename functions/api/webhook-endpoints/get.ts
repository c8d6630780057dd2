import { getWebhookEndpoint } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookEndpoint } from '../../resources/webhook-endpoints/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { webhookEndpointIdParams } from '../../resources/webhook-endpoints/request.js';
import { webhookEndpointStore } from '../../composition/webhooks.js';

export const handler = httpHandler(
  'api/webhook-endpoints/get',
  { params: webhookEndpointIdParams, query: noQuerySchema },
  () => ({ endpoints: webhookEndpointStore() }),
  async ({ accountId, params }, deps) => ({
    status: 200,
    body: presentWebhookEndpoint(await getWebhookEndpoint(deps, accountId, params.endpoint_id)),
  }),
);
