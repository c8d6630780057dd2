import * as z from 'zod';
import { subscribableEventTypes } from '../domain/webhooks/model.js';
import { maxChars } from './common.js';

/** Longer URLs are refused before any DNS lookup. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_DESCRIPTION_CHARS = 500;

/**
 * The endpoint's URL as sent. The outbound rules (https, no credentials, public addresses only)
 * need DNS and the deployment's loopback setting, so the use case checks them (domain/webhooks/endpoints.ts).
 */
const urlSchema = z
  .string()
  .min(1, 'A URL is required.')
  .max(MAX_WEBHOOK_URL_LENGTH, `At most ${MAX_WEBHOOK_URL_LENGTH} characters.`)
  .describe('HTTPS, on a host that resolves to public addresses only; no credentials in the URL.');

const eventTypeSchema = z.enum(subscribableEventTypes, { error: `Must be one of: ${subscribableEventTypes.join(', ')}.` });

/** DESIGN 8's terminal events, each at most once (the issue names the duplicate's index). */
const eventsSchema = z
  .array(eventTypeSchema)
  .min(1, 'Subscribe to at least one event type.')
  .max(subscribableEventTypes.length)
  .superRefine((events, ctx) => {
    events.forEach((type, index) => {
      if (events.indexOf(type) !== index) ctx.addIssue({ code: 'custom', path: [index], message: `"${type}" is listed twice.` });
    });
  })
  .meta({ uniqueItems: true });

const descriptionSchema = maxChars(MAX_WEBHOOK_DESCRIPTION_CHARS);

/** POST /v1/webhook-endpoints body (DESIGN 10). A new endpoint is enabled. */
export const webhookEndpointCreateSchema = z.strictObject({
  url: urlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional(),
});
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreateSchema>;

/** PATCH body: any of the fields, at least one; `description: null` clears it. */
export const webhookEndpointUpdateSchema = z
  .strictObject({
    url: urlSchema.optional(),
    events: eventsSchema.optional(),
    description: descriptionSchema.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' });
export type WebhookEndpointPatch = z.infer<typeof webhookEndpointUpdateSchema>;

/** Any string: a malformed id is just an unknown endpoint (404), like a foreign one. */
export const webhookEndpointIdParams = z.strictObject({ endpoint_id: z.string().max(200) });
