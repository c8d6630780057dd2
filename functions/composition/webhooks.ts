import { config } from '../config.js';
import { outboundUrlCheck } from '../adapters/outbound/url-check.js';
import { dynamoWebhookDeliveryStore } from '../adapters/table/webhook-delivery-store.js';
import { dynamoWebhookEndpointStore } from '../adapters/table/webhook-endpoint-store.js';
import type { WebhookEndpointDeps } from '../domain/webhooks/endpoints.js';
import { presentWebhookEndpoint } from '../resources/webhook-endpoints/presenter.js';
import { lazy } from '../shared/memo.js';
import { accounts } from './accounts.js';
import { hostDeliveryScheduler, hostEvents, outboundPolicy } from './host.js';
import { table } from './table.js';

/** Webhook endpoint records alone: what reads and the delivery engine's fan-out need. */
export const webhookEndpointStore = lazy(() => dynamoWebhookEndpointStore(table()));

/** Everything the endpoint routes need: records, the outbound URL rules, the switch and the test event's path. */
export const webhookEndpoints = lazy(
  (): WebhookEndpointDeps => ({
    endpoints: webhookEndpointStore(),
    checkUrl: outboundUrlCheck(outboundPolicy()),
    deploymentEventDelivery: config().EVENT_DELIVERY_ENABLED,
    events: hostEvents,
    present: presentWebhookEndpoint,
  }),
);

/** Webhook delivery records alone. */
export const webhookDeliveryStore = lazy(() => dynamoWebhookDeliveryStore(table()));

/** The delivery log routes: reading deliveries and reopening a failed one (no outbound, no signing). */
export const webhookDeliveryLog = lazy(() => ({
  deliveries: webhookDeliveryStore(),
  accounts: accounts(),
  scheduler: hostDeliveryScheduler,
  deploymentEnabled: config().EVENT_DELIVERY_ENABLED,
  clock: () => new Date(),
}));
