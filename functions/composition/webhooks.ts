import { config } from '../config.js';
import { createOutboundClient } from '../adapters/outbound/outbound-client.js';
import { dynamoWebhookDeliveryStore } from '../adapters/table/webhook-delivery-store.js';
import { httpWebhookTransport } from '../adapters/webhooks/http-transport.js';
import { standardWebhooksSigner } from '../adapters/webhooks/signer.js';
import type { DeliveryDeps } from '../domain/webhooks/deliveries.js';
import { logger } from '../shared/logger.js';
import { lazy } from '../shared/memo.js';
import { hostDeliveryScheduler } from './host-parts.js';
import { accounts, table } from './table.js';
import { webhookEndpointStore } from './webhook-endpoints.js';

/** Webhook delivery records alone. */
export const webhookDeliveryStore = lazy(() => dynamoWebhookDeliveryStore(table()));

/** The delivery engine: what the sender (a Lambda on AWS, in-process locally) runs with. */
export const webhookDelivery = lazy((): DeliveryDeps => {
  const cfg = config();
  return {
    deliveries: webhookDeliveryStore(),
    endpoints: webhookEndpointStore(),
    accounts: accounts(),
    transport: httpWebhookTransport(createOutboundClient({ allowLoopback: cfg.LOCAL_ALLOW_LOOPBACK_TARGETS, userAgent: 'media-scanner-webhooks' }), logger),
    signer: standardWebhooksSigner,
    scheduler: hostDeliveryScheduler,
    deploymentEnabled: cfg.EVENT_DELIVERY_ENABLED,
    retryScale: cfg.WEBHOOK_RETRY_SCALE,
    clock: () => new Date(),
  };
});

/** The delivery log routes: reading deliveries and reopening a failed one (no outbound, no signing). */
export const webhookDeliveryLog = lazy(() => ({
  deliveries: webhookDeliveryStore(),
  accounts: accounts(),
  scheduler: hostDeliveryScheduler,
  deploymentEnabled: config().EVENT_DELIVERY_ENABLED,
  clock: () => new Date(),
}));
