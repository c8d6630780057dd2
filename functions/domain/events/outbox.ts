import type { EventPublisher, EventSubjects, OutboxStore } from './ports.js';
import type { Announcement } from './model.js';

/**
 * The event outbox (DESIGN 8): a terminal event is written in the same table transaction as the
 * state change it announces, as an announcement naming its subject; a relay then publishes it
 * (with the record as GET returns it) at least once. So an event can be late, never lost.
 */

export interface RelayDeps {
  outbox: OutboxStore;
  subjects: EventSubjects;
  events: EventPublisher;
  warn: (message: string, error?: unknown) => void;
}

/** Publishes one announcement, then takes it out of the outbox (a crash between the two publishes it again: same id). */
export async function relayAnnouncement(deps: RelayDeps, accountId: string, pending: Announcement): Promise<void> {
  const object = await deps.subjects.present(accountId, pending.subject);
  if (object === undefined) deps.warn(`Outbox: the subject of ${pending.type} ${pending.eventId} no longer exists; nothing to announce`);
  else await deps.events.publish(accountId, { id: pending.eventId, type: pending.type, created_at: pending.createdAt, data: { object } });
  await deps.outbox.remove(accountId, pending.eventId);
}

/** Relays everything pending, oldest first; returns how many were relayed. A failure is left for the next drain. */
export async function drainOutbox(deps: RelayDeps, pageSize = 100): Promise<number> {
  let relayed = 0;
  const failed = new Set<string>();
  for (;;) {
    const page = await deps.outbox.pending(pageSize);
    let progressed = false;
    for (const { accountId, announcement: pending } of page) {
      if (failed.has(pending.eventId)) continue;
      try {
        await relayAnnouncement(deps, accountId, pending);
        relayed++;
        progressed = true;
      } catch (error) {
        failed.add(pending.eventId);
        deps.warn(`Outbox: could not relay ${pending.type} ${pending.eventId}; it stays pending`, error);
      }
    }
    if (page.length < pageSize || !progressed) return relayed;
  }
}
