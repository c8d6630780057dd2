import * as z from '../../shared/zod.js';
import { deliveryStatuses, subscribableEventTypes } from '../../domain/webhooks/model.js';
import { id, milliseconds, nullableTimestamp, timestamp } from '../common/response.js';

const deliveryAttemptSchema = z.object({
  at: timestamp.check(z.describe('When the attempt started.')),
  status_code: z
    .nullable(z.int().check(z.minimum(100), z.maximum(599)))
    .check(z.describe("The receiver's HTTP status; a 2xx within 15 s is success, a 3xx is never followed. Null when there was no answer.")),
  error: z
    .nullable(z.string())
    .check(
      z.describe(
        'Why there was no answer: target_refused (the URL now breaks the outbound rules), dns_failed (the hostname did not resolve at that attempt), connect_failed, tls_failed, timeout, network_error; ' +
          'or why nothing was sent: endpoint_disabled, endpoint_deleted, event_delivery_unavailable. Null when the receiver answered.',
      ),
    ),
  duration_ms: milliseconds,
  response_body: z.nullable(z.string()).check(z.describe("The first 1 KiB of the receiver's answer, as text.")),
});

export const webhookDeliverySchema = z.object({
  object: z.literal('webhook_delivery'),
  delivery_id: id('delivery'),
  endpoint_id: id('webhookEndpoint'),
  event_id: id('event').check(z.describe('The `webhook-id` header of every attempt: the same on each retry.')),
  event_type: z.enum([...subscribableEventTypes, 'webhook.test']),
  status: z.enum(deliveryStatuses).check(z.describe('pending until a 2xx answers (succeeded) or the retry schedule is spent (failed).')),
  attempts: z.array(deliveryAttemptSchema).check(z.describe('Every attempt, oldest first.')),
  next_attempt_at: nullableTimestamp.check(z.describe('When the next attempt is due; null once succeeded or failed.')),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WebhookDeliveryResource = z.infer<typeof webhookDeliverySchema>;
