import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { reportStandInCall } from '../aws-call-hooks.js';
import type { EventPublisher } from '../../domain/events/ports.js';
import type { ServiceEvent } from '../../domain/events/model.js';

/** Accepts an event: resolves once the event is safe with the subscriber (the webhook sender: its deliveries written). */
type EventListener = (accountId: string, event: ServiceEvent) => Promise<void>;

export interface LocalEventBus extends EventPublisher {
  /** In-process delivery (the local webhook sender subscribes here); returns the unsubscribe. */
  subscribe(listener: EventListener): () => void;
}

/** What each line of events.ndjson holds: the account it belongs to and the payload as delivered. */
export interface EventLogLine {
  account_id: string;
  event: ServiceEvent;
}

const buses = new Map<string, LocalEventBus>();

/**
 * The local host's event bus: every event is appended as one JSON line to `file` (so developers
 * and tests see exactly what would be delivered) and then handed to in-process subscribers. A
 * publish returns once every subscriber accepted the event, as PutEvents returns once EventBridge
 * holds it: the outbox relay removes an announcement only then, so a crash in between publishes
 * it again rather than losing it. One bus per file per process, so every handler shares it.
 */
export function localEventBus(file: string): LocalEventBus {
  let bus = buses.get(file);
  if (bus) return bus;
  const listeners = new Set<EventListener>();
  // Appends are chained so concurrent publishes never interleave within a line.
  let tail: Promise<void> = mkdir(dirname(file), { recursive: true }).then(() => undefined);
  bus = {
    async publish(accountId, event) {
      // On AWS: PutEvents on the bus EVENT_BUS_NAME names (eventbridge-publisher.ts).
      reportStandInCall(() => ({
        clientName: 'EventBridgeClient',
        commandName: 'PutEventsCommand',
        input: { Entries: [{ EventBusName: '${EVENT_BUS_NAME}' }] },
      }));
      const line: EventLogLine = { account_id: accountId, event };
      const written = tail.then(() => appendFile(file, `${JSON.stringify(line)}\n`, 'utf8'));
      tail = written.catch(() => undefined);
      await written;
      // A subscriber that cannot accept the event fails the publish, which the relay retries.
      await Promise.all([...listeners].map((listener) => listener(accountId, event)));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  buses.set(file, bus);
  return bus;
}
