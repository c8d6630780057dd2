import * as z from '../../shared/zod.js';
import { subscribableEventTypes } from '../../domain/webhooks/model.js';
import { id, timestamp } from '../common/response.js';

export const webhookEndpointSchema = z.object({
  object: z.literal('webhook_endpoint'),
  endpoint_id: id('webhookEndpoint'),
  url: z.string().check(z.describe('Where events are POSTed: HTTPS on public addresses, checked at creation and again at every delivery.')),
  events: z.array(z.enum(subscribableEventTypes)).check(z.describe('The event types delivered to this endpoint.')),
  description: z.nullable(z.string()),
  enabled: z.boolean().check(z.describe('A disabled endpoint receives nothing.')),
  created_at: timestamp,
  updated_at: timestamp,
});
export type WebhookEndpointResource = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointWithSecretSchema = z.extend(webhookEndpointSchema, {
  secret: z
    .string()
    .check(z.regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/), z.describe('The signing secret (Standard Webhooks), shown only in this answer: store it now.')),
});
export type WebhookEndpointWithSecretResource = z.infer<typeof webhookEndpointWithSecretSchema>;

export const deletedWebhookEndpointSchema = z.object({
  object: z.literal('webhook_endpoint'),
  endpoint_id: id('webhookEndpoint'),
  deleted: z.literal(true),
});
export type DeletedWebhookEndpointResource = z.infer<typeof deletedWebhookEndpointSchema>;

export const webhookTestSchema = z.object({
  object: z.literal('webhook_test'),
  endpoint_id: id('webhookEndpoint'),
  event_id: id('event').check(z.describe('The `webhook-id` the test delivery carries; it is listed at GET /v1/webhook-deliveries.')),
  event_type: z.literal('webhook.test'),
  created_at: timestamp,
});
export type WebhookTestResource = z.infer<typeof webhookTestSchema>;
