import { listDeliveries } from '../../domain/webhooks/deliveries.js';
import { httpHandler } from '../../http/handler.js';
import { presentList } from '../../resources/common/list.js';
import { presentWebhookDelivery } from '../../resources/webhook-deliveries/presenter.js';
import { deliveryListQuerySchema } from '../../resources/webhook-deliveries/request.js';
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
