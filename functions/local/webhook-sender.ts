import type { LocalEventBus } from '../adapters/events/local-event-bus.js';
import type { ServiceEvent } from '../domain/ports.js';
import { attemptDelivery, fanOut, type DeliveryDeps } from '../domain/webhooks/deliveries.js';
import { asUnit } from './aws-calls/recorder.js';
import { units } from './aws-calls/vocabulary.js';
import { LocalDeliveryScheduler } from './webhook-scheduler.js';

/** Events fanned out at once; a burst waits its turn in memory (each fan-out makes its first attempts). */
const FAN_OUT_CONCURRENCY = 8;
/** How long stop() waits for fan-outs in flight (their first POSTs may take up to 15 s). */
const STOP_WAIT_MS = 5_000;

export interface LocalWebhookSender {
  /** The host's DeliveryScheduler (installed before any handler runs). */
  scheduler: LocalDeliveryScheduler;
  /** Subscribes to the bus and resumes pending deliveries; returns how many were resumed. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The local host's webhook sender (DESIGN 2: "in-process bus -> same sender"): every event on the
 * bus is fanned out by the same domain code the sender Lambda runs on AWS, and the scheduler's
 * timers wake due retries. `deps` is read at the first use, once the host's configuration is set.
 */
export function localWebhookSender(bus: LocalEventBus, deps: () => DeliveryDeps, warn: (message: string, error?: unknown) => void): LocalWebhookSender {
  const scheduler = new LocalDeliveryScheduler({
    deliveries: { listDue: (at, limit) => deps().deliveries.listDue(at, limit) },
    attempt: (accountId, deliveryId) => attemptDelivery(deps(), accountId, deliveryId),
    warn,
  });
  const waiting: { accountId: string; event: ServiceEvent }[] = [];
  const running = new Set<Promise<void>>();
  let unsubscribe: (() => void) | undefined;

  const pump = () => {
    while (unsubscribe && running.size < FAN_OUT_CONCURRENCY && waiting.length) {
      const { accountId, event } = waiting.shift()!;
      const run: Promise<void> = fanOut(deps(), accountId, event)
        .then(
          () => undefined,
          (error: unknown) => warn(`Webhook fan-out of ${event.type} ${event.id} failed`, error),
        )
        .finally(() => {
          running.delete(run);
          pump();
        });
      running.add(run);
    }
  };

  return {
    scheduler,
    async start() {
      // As the host's own work: on AWS the sender is a Lambda of its own, not the publishing route or task.
      unsubscribe = bus.subscribe(
        asUnit(units.host, (accountId: string, event: ServiceEvent) => {
          waiting.push({ accountId, event });
          pump();
        }),
      );
      return scheduler.start();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      waiting.length = 0;
      // Deliveries a fan-out created are in the table and the next start resumes them; an event not
      // yet fanned out (waiting, or cut short before its deliveries were written) is dropped here.
      const fanOuts = Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
      await Promise.all([scheduler.stop(), fanOuts]);
    },
  };
}
