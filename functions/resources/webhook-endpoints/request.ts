import * as z from '../../shared/zod.js';
import { subscribableEventTypes } from '../../domain/webhooks/model.js';
import { idParam } from '../common/fields.js';
import { maxChars } from '../../domain/metadata.js';

/** Longer URLs are refused before any DNS lookup. */
const MAX_WEBHOOK_URL_LENGTH = 2048;
const MAX_WEBHOOK_DESCRIPTION_CHARS = 500;

/**
 * The endpoint's URL as sent. The outbound rules (https, no credentials, public addresses only)
 * need DNS and the deployment's loopback setting, so the use case checks them (domain/webhooks/endpoints.ts).
 */
const urlSchema = z
  .string()
  .check(
    z.minLength(1, 'A URL is required.'),
    z.maxLength(MAX_WEBHOOK_URL_LENGTH, `At most ${MAX_WEBHOOK_URL_LENGTH} characters.`),
    z.describe('HTTPS, on a host that resolves to public addresses only; no credentials in the URL.'),
  );

const eventTypeSchema = z.enum(subscribableEventTypes, { error: `Must be one of: ${subscribableEventTypes.join(', ')}.` });

/** DESIGN 8's terminal events, each at most once (the issue names the duplicate's index). */
const eventsSchema = z.array(eventTypeSchema).check(
  z.minLength(1, 'Subscribe to at least one event type.'),
  z.maxLength(subscribableEventTypes.length),
  z.superRefine((events, ctx) => {
    events.forEach((type, index) => {
      if (events.indexOf(type) !== index) ctx.addIssue({ code: 'custom', path: [index], message: `"${type}" is listed twice.` });
    });
  }),
  z.meta({ uniqueItems: true }),
);

const descriptionSchema = maxChars(MAX_WEBHOOK_DESCRIPTION_CHARS);

/** POST /v1/webhook-endpoints body (DESIGN 10). A new endpoint is enabled. */
export const webhookEndpointCreateSchema = z.strictObject({
  url: urlSchema,
  events: eventsSchema,
  description: z.optional(descriptionSchema),
});

/** PATCH body: any of the fields, at least one; `description: null` clears it. */
export const webhookEndpointUpdateSchema = z
  .strictObject({
    url: z.optional(urlSchema),
    events: z.optional(eventsSchema),
    description: z.optional(z.nullable(descriptionSchema)),
    enabled: z.optional(z.boolean()),
  })
  .check(z.refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' }));

export const webhookEndpointIdParams = z.strictObject({ endpoint_id: idParam });
