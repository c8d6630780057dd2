import type { LocalEventBus } from '../adapters/events/local-event-bus.js';
import type { ServiceEvent } from '../domain/events/model.js';
import { attemptDelivery, createDeliveries, type DeliveryDeps } from '../domain/webhooks/deliveries.js';
import { asUnit } from './unit-context.js';
import { units } from '../runtime/contracts.js';
import { LocalDeliveryScheduler } from './webhook-scheduler.js';

interface LocalWebhookSender {
  /** The host's DeliveryScheduler (installed before any handler runs). */
  scheduler: LocalDeliveryScheduler;
  /** Subscribes to the bus and resumes pending deliveries; returns how many were resumed. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The local host's webhook sender (DESIGN 2: "in-process bus -> same sender"): the same domain
 * code the sender Lambda runs on AWS. It accepts an event from the bus once the event's
 * deliveries are in the table (the bus's publish, and so the outbox relay, waits for that, as
 * PutEvents waits for EventBridge), then the scheduler attempts them, at once and on the retry
 * schedule. `deps` is read at the first use, once the host's configuration is set.
 */
export function localWebhookSender(bus: LocalEventBus, deps: () => DeliveryDeps, warn: (message: string, error?: unknown) => void): LocalWebhookSender {
  const scheduler = new LocalDeliveryScheduler({
    deliveries: { listDue: (at, limit) => deps().deliveries.listDue(at, limit) },
    // The sender Lambda's work on AWS: recorded as that unit's calls, checked against its role.
    attempt: asUnit(units.webhookSender, (accountId: string, deliveryId: string) => attemptDelivery(deps(), accountId, deliveryId)),
    retryScale: () => deps().retryScale,
    warn,
  });
  // The sender's work (a Lambda of its own on AWS), never that of the route or relay that published.
  const accept = asUnit(units.webhookSender, async (accountId: string, event: ServiceEvent) => {
    const now = new Date();
    for (const { delivery } of await createDeliveries(deps(), accountId, event)) {
      if (delivery.status === 'pending')
        await scheduler.schedule(accountId, delivery.deliveryId, delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : now);
    }
  });
  let unsubscribe: (() => void) | undefined;

  return {
    scheduler,
    async start() {
      unsubscribe = bus.subscribe(accept);
      return scheduler.start();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      // Deliveries are in the table; the next start resumes what is pending.
      await scheduler.stop();
    },
  };
}
