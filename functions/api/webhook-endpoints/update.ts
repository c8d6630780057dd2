import { updateWebhookEndpoint } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookEndpoint } from '../../resources/webhook-endpoints/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { webhookEndpointIdParams, webhookEndpointUpdateSchema } from '../../resources/webhook-endpoints/request.js';
import { webhookEndpoints } from '../../composition/webhooks.js';

/** PATCH /v1/webhook-endpoints/{endpoint_id}: a new URL is checked like a new endpoint's. */
export const handler = httpHandler(
  'api/webhook-endpoints/update',
  { params: webhookEndpointIdParams, query: noQuerySchema, body: webhookEndpointUpdateSchema },
  webhookEndpoints,
  async ({ accountId, params, body }, deps) => ({
    status: 200,
    body: presentWebhookEndpoint(await updateWebhookEndpoint(deps, accountId, params.endpoint_id, body)),
  }),
);
