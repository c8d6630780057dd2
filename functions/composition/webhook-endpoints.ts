import { config } from '../config.js';
import { outboundUrlCheck } from '../adapters/outbound/url-check.js';
import { dynamoWebhookEndpointStore } from '../adapters/table/webhook-endpoint-store.js';
import type { WebhookEndpointDeps } from '../domain/webhooks/endpoints.js';
import { lazy } from '../shared/memo.js';
import { presentWebhookEndpoint } from '../resources/webhook-endpoints/presenter.js';
import { hostEvents } from './host-parts.js';
import { table } from './table.js';

/** Webhook endpoint records alone: what reads and the delivery engine's fan-out need. */
export const webhookEndpointStore = lazy(() => dynamoWebhookEndpointStore(table()));

/** Everything the endpoint routes need: records, the outbound URL rules, the switch and the test event's path. */
export const webhookEndpoints = lazy((): WebhookEndpointDeps => {
  const cfg = config();
  return {
    endpoints: webhookEndpointStore(),
    checkUrl: outboundUrlCheck({ allowLoopback: cfg.LOCAL_ALLOW_LOOPBACK_TARGETS }),
    deploymentEventDelivery: cfg.EVENT_DELIVERY_ENABLED,
    events: hostEvents,
    present: presentWebhookEndpoint,
  };
});
