import { rotateWebhookSecret } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookEndpointWithSecret } from '../../resources/webhook-endpoints/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { webhookEndpointIdParams } from '../../resources/webhook-endpoints/request.js';
import { webhookEndpointStore } from '../../composition/webhooks.js';

/** POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret: the new secret, shown this once; the old one signs for 24 h more. */
export const handler = httpHandler(
  'api/webhook-endpoints/rotate-secret',
  { params: webhookEndpointIdParams, query: noQuerySchema },
  () => ({ endpoints: webhookEndpointStore() }),
  async ({ accountId, params }, deps) => {
    const { endpoint, secret } = await rotateWebhookSecret(deps, accountId, params.endpoint_id);
    return { status: 200, body: presentWebhookEndpointWithSecret(endpoint, secret) };
  },
);
