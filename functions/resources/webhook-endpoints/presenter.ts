import type { WebhookEndpointRecord } from '../../domain/webhooks/model.js';
import type { ServiceEvent } from '../../domain/events/model.js';
import type { DeletedWebhookEndpointResource, WebhookEndpointResource, WebhookEndpointWithSecretResource, WebhookTestResource } from './response.js';

/**
 * A webhook endpoint as GET returns it (DESIGN 10), and as a `webhook.test` event carries it.
 * Signing secrets are never part of it: only the creation and rotation answers add the new one.
 */
export const presentWebhookEndpoint = (endpoint: WebhookEndpointRecord): WebhookEndpointResource => ({
  object: 'webhook_endpoint' as const,
  endpoint_id: endpoint.endpointId,
  url: endpoint.url,
  events: [...endpoint.events],
  description: endpoint.description,
  enabled: endpoint.enabled,
  created_at: endpoint.createdAt,
  updated_at: endpoint.updatedAt,
});

/** The answer of creation and rotation: the record and, this once, the secret just made. */
export const presentWebhookEndpointWithSecret = (endpoint: WebhookEndpointRecord, secret: string): WebhookEndpointWithSecretResource => ({
  ...presentWebhookEndpoint(endpoint),
  secret,
});

export const presentDeletedWebhookEndpoint = (endpointId: string): DeletedWebhookEndpointResource => ({
  object: 'webhook_endpoint' as const,
  endpoint_id: endpointId,
  deleted: true as const,
});

export const presentWebhookTest = (endpoint: WebhookEndpointRecord, event: ServiceEvent): WebhookTestResource => ({
  object: 'webhook_test' as const,
  endpoint_id: endpoint.endpointId,
  event_id: event.id,
  event_type: 'webhook.test' as const,
  created_at: event.created_at,
});
