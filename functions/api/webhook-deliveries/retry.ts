import { retryDelivery } from '../../domain/webhooks/deliveries.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookDelivery } from '../../shared/webhook-delivery-presenters.js';
import { noQuerySchema } from '../../schemas/common.js';
import { deliveryIdParams } from '../../schemas/webhook-delivery.js';
import { webhookDeliveryLog } from '../../composition/webhooks.js';

export const handler = httpHandler(
  'api/webhook-deliveries/retry',
  { params: deliveryIdParams, query: noQuerySchema },
  () => ({ log: webhookDeliveryLog() }),
  async ({ accountId, params }, { log }) => ({
    status: 202,
    body: presentWebhookDelivery(await retryDelivery(log, accountId, params.delivery_id)),
  }),
);
