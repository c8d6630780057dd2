import { listDeliveries } from '../../domain/webhooks/deliveries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../shared/presenters.js';
import { presentWebhookDelivery } from '../../shared/webhook-delivery-presenters.js';
import { deliveryListQuerySchema } from '../../schemas/webhook-delivery.js';
import { webhookDeliveryLog } from '../../composition/webhooks.js';

export const handler = httpHandler(
  'api/webhook-deliveries/list',
  { query: deliveryListQuerySchema },
  () => ({ log: webhookDeliveryLog() }),
  async ({ accountId, query: { limit, cursor, endpoint_id, event_type, status, event_id } }, { log }) => ({
    status: 200,
    body: presentList(
      await listDeliveries(log, accountId, { endpointId: endpoint_id, eventType: event_type, status, eventId: event_id }, { limit, cursor }),
      presentWebhookDelivery,
    ),
  }),
);
