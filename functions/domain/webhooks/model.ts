import type { EventType } from '../events/model.js';

/**
 * Webhooks (SPEC "Events", DESIGN 8 and 10): an account's endpoints, and one delivery per
 * (event, endpoint) with every attempt it took. Records as stored; presenters shape the API.
 */

/** Event types an endpoint may subscribe to: DESIGN 8's terminal events. */
export const subscribableEventTypes = [
  'analysis.completed',
  'analysis.failed',
  'analysis.canceled',
  'run.completed',
  'run.failed',
  'render.completed',
  'render.failed',
  'upload.ready',
  'upload.failed',
  'scanner_batch.completed',
] as const satisfies readonly EventType[];

export type SubscribableEventType = (typeof subscribableEventTypes)[number];

/** A signing secret (`whsec_` + base64). A rotated-out secret keeps signing until `expiresAt`. */
export interface SigningSecret {
  secret: string;
  /** Absent: the current secret. */
  expiresAt?: string;
}

export interface WebhookEndpointRecord {
  endpointId: string;
  accountId: string;
  url: string;
  events: SubscribableEventType[];
  description: string | null;
  enabled: boolean;
  /** The current secret first; rotated-out ones after it until they expire. Never presented but at creation/rotation. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
}

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** One POST to the endpoint: its answer (a status code) or why there was none (an error code). */
export interface DeliveryAttempt {
  at: string;
  statusCode?: number;
  error?: string;
  durationMs: number;
  /** The first 1 KiB of the response body, as text. */
  responseBody?: string;
}

export interface WebhookDeliveryRecord {
  deliveryId: string;
  accountId: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  /** The event exactly as sent, so every retry signs and sends the same bytes. Never presented. */
  payload: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** When the next attempt is due; null once the delivery is terminal. */
  nextAttemptAt: string | null;
  /** Reopened by POST /v1/webhook-deliveries/{id}/retry: the next attempt is one manual attempt, not a new schedule. */
  manualRetry?: boolean;
  createdAt: string;
  updatedAt: string;
}
