import type { Announcement, EventSubject, ServiceEvent } from './model.js';

/** Terminal events leave the service through here (EventBridge on AWS, an in-process bus locally). */
export interface EventPublisher {
  publish(accountId: string, event: ServiceEvent): Promise<void>;
}

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
