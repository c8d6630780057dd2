import type { WebhookDeliveryRecord } from '../../domain/webhooks/model.js';
import type { WebhookDeliveryResource } from './response.js';

/**
 * A webhook delivery as the delivery log shows it (DESIGN 10). Allowlisted: never the payload or
 * its signatures, never the endpoint's URL or secrets (the endpoint is named by its id).
 */
export const presentWebhookDelivery = (delivery: WebhookDeliveryRecord): WebhookDeliveryResource => ({
  object: 'webhook_delivery' as const,
  delivery_id: delivery.deliveryId,
  endpoint_id: delivery.endpointId,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  status: delivery.status,
  attempts: delivery.attempts.map((attempt) => ({
    at: attempt.at,
    status_code: attempt.statusCode ?? null,
    error: attempt.error ?? null,
    duration_ms: attempt.durationMs,
    response_body: attempt.responseBody ?? null,
  })),
  next_attempt_at: delivery.nextAttemptAt,
  created_at: delivery.createdAt,
  updated_at: delivery.updatedAt,
});
