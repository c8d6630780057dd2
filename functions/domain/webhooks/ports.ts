import type { Page, PageRequest } from '../pages.js';
import type { DeliveryAttempt, DeliveryStatus, WebhookDeliveryRecord, WebhookEndpointRecord } from './model.js';

/** Endpoints of an account (table: `ACCT#<id>` / `WHE#<endpoint_id>`). */
export interface WebhookEndpointStore {
  /**
   * A new endpoint; endpoint ids are fresh, so this never overwrites. With `maxPerAccount`, written
   * only while the account has fewer endpoints (counted in the same transaction): false otherwise.
   */
  create(endpoint: WebhookEndpointRecord, maxPerAccount?: number): Promise<boolean>;
  get(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  /** Newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<WebhookEndpointRecord>>;
  /** Every endpoint of the account (an account has few), for fan-out. */
  listAll(accountId: string): Promise<WebhookEndpointRecord[]>;
  /**
   * Replaces the stored endpoint if it still exists; false when it was deleted meanwhile. With
   * `readUpdatedAt`, only if it is still the version read (its updatedAt): a PATCH racing a
   * secret rotation must not write back the secrets it read.
   */
  replace(endpoint: WebhookEndpointRecord, readUpdatedAt?: string): Promise<boolean>;
  /** false when there was no such endpoint. */
  delete(accountId: string, endpointId: string): Promise<boolean>;
}

/** Whether a webhook URL may be targeted now (DESIGN 9), its host resolved; `reason` says why not, for the integrator. */
type WebhookUrlVerdict = { allowed: true; url: string } | { allowed: false; reason: string };

/** Checks a webhook URL with the shared outbound rules (functions/adapters/outbound); the URL stored is the normalized `url`. */
export type WebhookUrlCheck = (url: string) => Promise<WebhookUrlVerdict>;

/** Filters of GET /v1/webhook-deliveries. */
export interface DeliveryFilter {
  endpointId?: string | undefined;
  eventType?: string | undefined;
  status?: DeliveryStatus | undefined;
  eventId?: string | undefined;
}

/** Deliveries (table: `ACCT#<id>` / `DLV#<delivery_id>`; pending ones also on a due-time index). */
export interface WebhookDeliveryStore {
  /**
   * Creates the delivery of one event to one endpoint once: a repeated fan-out of the same event
   * finds the delivery it created before and returns it (`created: false`).
   */
  createOnce(delivery: WebhookDeliveryRecord): Promise<{ created: boolean; delivery: WebhookDeliveryRecord }>;
  get(accountId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined>;
  /**
   * Appends an attempt and moves the delivery on (pending with the next due time, or terminal),
   * conditioned on the attempt count it was read with, so two senders never record one attempt twice.
   */
  recordAttempt(
    delivery: WebhookDeliveryRecord,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; nextAttemptAt: string | null },
    now: string,
  ): Promise<boolean>;
  /** A failed delivery back to pending, due at `at` (POST /v1/webhook-deliveries/{id}/retry). */
  reopen(delivery: WebhookDeliveryRecord, at: string): Promise<boolean>;
  list(accountId: string, filter: DeliveryFilter, page: PageRequest): Promise<Page<WebhookDeliveryRecord>>;
  /** Pending deliveries of every account due at or before `at`, oldest due first (the local scheduler's resume). */
  listDue(at: string, limit: number): Promise<WebhookDeliveryRecord[]>;
}

/** Sends one signed POST; the adapter applies the outbound rules (DESIGN 9) to the URL at every call. */
export interface WebhookTransport {
  post(url: string, body: string, headers: Record<string, string>): Promise<Omit<DeliveryAttempt, 'at'>>;
}

/** Standard Webhooks signatures: the `webhook-signature` value, one `v1,<base64>` per secret, space-separated. */
export interface WebhookSigner {
  sign(messageId: string, timestamp: Date, payload: string, secrets: readonly string[]): string;
}

/** Wakes the sender when a pending delivery falls due (SQS delay or EventBridge Scheduler on AWS, timers locally). */
export interface DeliveryScheduler {
  schedule(accountId: string, deliveryId: string, at: Date): Promise<void>;
}
