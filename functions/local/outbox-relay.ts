import { drainOutbox } from '../domain/events/outbox.js';
import { outboxRelay } from '../composition/outbox.js';
import { logger } from '../shared/logger.js';
import { inUnit } from './unit-context.js';
import { units } from '../runtime/contracts.js';

/** How often the local relay looks for new announcements: the local stand-in for the table's stream. */
const POLL_MS = 100;

/**
 * The local host's outbox relay (on AWS: the table stream and functions/events/relay-outbox.ts).
 * It drains what a previous run of the host left pending as soon as it starts, then keeps
 * relaying new announcements to the in-process bus; stop() waits for a drain under way.
 */
export function startOutboxRelay(): { stop: () => Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let draining: Promise<void> = Promise.resolve();
  const tick = () => {
    draining = inUnit(units.outboxRelay, () => drainOutbox(outboxRelay()))
      .then(() => undefined)
      .catch((error: unknown) => logger.warn('Outbox relay: the outbox could not be read; retrying', error as Error))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, POLL_MS);
      });
  };
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await draining;
    },
  };
}
