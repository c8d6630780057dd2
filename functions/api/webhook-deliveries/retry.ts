import { retryDelivery } from '../../domain/webhooks/deliveries.js';
import { httpHandler } from '../../http/handler.js';
import { presentWebhookDelivery } from '../../resources/webhook-deliveries/presenter.js';
import { noQuerySchema } from '../../resources/common/fields.js';
import { deliveryIdParams } from '../../resources/webhook-deliveries/request.js';
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
