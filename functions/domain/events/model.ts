import { createHash } from 'node:crypto';

/** DESIGN §8 event types. */
export type EventType =
  | 'analysis.completed'
  | 'analysis.failed'
  | 'analysis.canceled'
  | 'run.completed'
  | 'run.failed'
  | 'render.completed'
  | 'render.failed'
  | 'upload.ready'
  | 'upload.failed'
  | 'scanner_batch.completed'
  /** Sent on request to one endpoint (POST /v1/webhook-endpoints/{id}/test), through the normal path. */
  | 'webhook.test';

/** DESIGN §8 payload: `data.object` is the record exactly as its GET returns it. */
export interface ServiceEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: { object: unknown };
}

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
export const eventIdOf = (type: EventType, subjectId: string): string =>
  `evt_${createHash('sha256').update(`${type}:${subjectId}`).digest('hex').slice(0, 32)}`;

export const announcement = (type: EventType, subject: EventSubject, createdAt: string): Announcement => ({
  eventId: eventIdOf(type, subjectIdOf(subject)),
  type,
  subject,
  createdAt,
});
