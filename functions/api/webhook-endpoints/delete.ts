import { deleteWebhookEndpoint } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentDeletedWebhookEndpoint } from '../../shared/webhook-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { webhookEndpointIdParams } from '../../schemas/webhook.js';
import { webhookEndpointStore } from '../../composition/webhook-endpoints.js';

/** DELETE /v1/webhook-endpoints/{endpoint_id}: 200 with a deletion marker; a second delete is 404. */
export const handler = httpHandler(
  'api/webhook-endpoints/delete',
  { params: webhookEndpointIdParams, query: noQuerySchema },
  () => ({ endpoints: webhookEndpointStore() }),
  async ({ accountId, params }, deps) => {
    await deleteWebhookEndpoint(deps, accountId, params.endpoint_id);
    return { status: 200, body: presentDeletedWebhookEndpoint(params.endpoint_id) };
  },
);
