import { createHash } from 'node:crypto';
import type { EventPublisher, EventType } from '../ports.js';
import type { RunRecord } from '../runs/model.js';

/**
 * The event outbox (DESIGN 8): a terminal event is written in the same table transaction as the
 * state change it announces, as an announcement naming its subject; a relay then publishes it
 * (with the record as GET returns it) at least once. So an event can be late, never lost.
 */

/** What an event announces: the record its `data.object` is. */
export type EventSubject =
  | { kind: 'run'; runId: string }
  | { kind: 'analysis'; analysisId: string }
  | { kind: 'upload'; uploadId: string }
  | { kind: 'batch'; batchId: string }
  | { kind: 'render'; renderId: string };

export interface Announcement {
  /** Derived from the type and the subject, so announcing the same end twice is one event. */
  eventId: string;
  type: EventType;
  subject: EventSubject;
  /** The event's `created_at`: when the state change happened. */
  createdAt: string;
}

const subjectIdOf = (subject: EventSubject): string => {
  switch (subject.kind) {
    case 'run':
      return subject.runId;
    case 'analysis':
      return subject.analysisId;
    case 'upload':
      return subject.uploadId;
    case 'batch':
      return subject.batchId;
    case 'render':
      return subject.renderId;
  }
};

/** `evt_` + 32 hex of sha256(type:subject id): consumers dedupe a repeated announcement by it. */
export const eventIdOf = (type: EventType, subjectId: string): string => `evt_${createHash('sha256').update(`${type}:${subjectId}`).digest('hex').slice(0, 32)}`;

export const announcement = (type: EventType, subject: EventSubject, createdAt: string): Announcement => ({
  eventId: eventIdOf(type, subjectIdOf(subject)),
  type,
  subject,
  createdAt,
});

/**
 * The events of ended work (DESIGN 8): run.completed|failed for a scanner run (a one-off
 * analysis's internal run announces nothing), and analysis.completed|failed|canceled.
 */
export function endAnnouncements(run: RunRecord, analysisEnd: 'completed' | 'failed' | 'canceled', at: string): Announcement[] {
  const runEnd = analysisEnd === 'completed' ? 'completed' : 'failed';
  return [
    ...(run.oneOff ? [] : [announcement(`run.${runEnd}`, { kind: 'run', runId: run.runId }, at)]),
    announcement(`analysis.${analysisEnd}`, { kind: 'analysis', analysisId: run.analysisId }, at),
  ];
}

/** A batch's one event, whatever its terminal state (DESIGN 8). */
export const batchEndAnnouncements = (batchId: string, at: string): Announcement[] => [announcement('scanner_batch.completed', { kind: 'batch', batchId }, at)];

/** Pending announcements in the table, for the relay. */
export interface OutboxStore {
  /** The oldest pending announcements of every account. */
  pending(limit: number): Promise<{ accountId: string; announcement: Announcement }[]>;
  /** Done: the event was published. Removing an absent one is not an error. */
  remove(accountId: string, eventId: string): Promise<void>;
}

/** The record each subject names, as its GET presents it; undefined when it no longer exists. */
export interface EventSubjects {
  present(accountId: string, subject: EventSubject): Promise<unknown>;
}

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
