import { config } from '../config.js';
import { createOutboundClient } from '../adapters/outbound/outbound-client.js';
import { httpWebhookTransport } from '../adapters/webhooks/http-transport.js';
import { standardWebhooksSigner } from '../adapters/webhooks/signer.js';
import type { DeliveryDeps } from '../domain/webhooks/deliveries.js';
import { logger } from '../shared/logger.js';
import { lazy } from '../shared/memo.js';
import { accounts } from './accounts.js';
import { hostDeliveryScheduler, outboundPolicy } from './host.js';
import { webhookDeliveryStore, webhookEndpointStore } from './webhooks.js';

/**
 * The delivery engine: what the sender (a Lambda on AWS, in-process locally) runs with. Apart from
 * webhooks.ts so that the endpoint and delivery-log routes carry no outbound HTTP client or signer.
 */
export const webhookDelivery = lazy((): DeliveryDeps => {
  const cfg = config();
  return {
    deliveries: webhookDeliveryStore(),
    endpoints: webhookEndpointStore(),
    accounts: accounts(),
    transport: httpWebhookTransport(createOutboundClient({ ...outboundPolicy(), userAgent: 'media-scanner-webhooks' }), logger),
    signer: standardWebhooksSigner,
    scheduler: hostDeliveryScheduler,
    deploymentEnabled: cfg.EVENT_DELIVERY_ENABLED,
    retryScale: cfg.WEBHOOK_RETRY_SCALE,
    clock: () => new Date(),
  };
});
