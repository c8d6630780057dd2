import { deleteWebhookEndpoint } from '../../domain/webhooks/endpoints.js';
import { httpHandler } from '../../http/handler.js';
import { presentDeletedWebhookEndpoint } from '../../resources/webhook-endpoints/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { webhookEndpointIdParams } from '../../resources/webhook-endpoints/request.js';
import { webhookEndpointStore } from '../../composition/webhooks.js';

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
