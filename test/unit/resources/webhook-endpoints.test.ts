import { describe, expect, it } from 'vitest';
import { validationError } from '../../../functions/http/responses.js';
import { subscribableEventTypes } from '../../../functions/domain/webhooks/model.js';
import { webhookEndpointCreateSchema, webhookEndpointUpdateSchema } from '../../../functions/resources/webhook-endpoints/request.js';

/** The ApiError the handler would answer for `body`: its param and message. */
function refusal(schema: typeof webhookEndpointCreateSchema | typeof webhookEndpointUpdateSchema, body: unknown) {
  const result = schema.safeParse(body);
  if (result.success) throw new Error('expected a refusal');
  const error = validationError(result.error);
  return { param: error.param, message: error.message };
}

const valid = { url: 'https://hooks.example.com/in', events: ['run.completed'] };

describe('POST /v1/webhook-endpoints body', () => {
  it('takes url, events and an optional description', () => {
    expect(webhookEndpointCreateSchema.parse({ ...valid, description: 'prod' })).toEqual({ ...valid, description: 'prod' });
    expect(webhookEndpointCreateSchema.parse({ ...valid, events: [...subscribableEventTypes] }).events).toHaveLength(subscribableEventTypes.length);
  });

  it('refuses unknown fields, enabled and secret included', () => {
    expect(refusal(webhookEndpointCreateSchema, { ...valid, enabled: false }).param).toBe('enabled');
    expect(refusal(webhookEndpointCreateSchema, { ...valid, secret: 'whsec_x' }).param).toBe('secret');
  });

  it('refuses an empty list, an unknown or unsubscribable type, and duplicates by index', () => {
    expect(refusal(webhookEndpointCreateSchema, { ...valid, events: [] })).toMatchObject({
      param: 'events',
      message: expect.stringMatching(/at least one/) as string,
    });
    expect(refusal(webhookEndpointCreateSchema, { ...valid, events: ['run.completed', 'run.started'] })).toMatchObject({
      param: 'events[1]',
      message: expect.stringMatching(/Must be one of: analysis\.completed/) as string,
    });
    expect(refusal(webhookEndpointCreateSchema, { ...valid, events: ['webhook.test'] }).param).toBe('events[0]');
    expect(refusal(webhookEndpointCreateSchema, { ...valid, events: ['run.completed', 'run.failed', 'run.completed'] })).toMatchObject({
      param: 'events[2]',
      message: 'events[2]: "run.completed" is listed twice.',
    });
  });

  it("requires url and bounds its length and the description's", () => {
    expect(refusal(webhookEndpointCreateSchema, { events: valid.events }).param).toBe('url');
    expect(refusal(webhookEndpointCreateSchema, { ...valid, url: `https://hooks.example.com/${'a'.repeat(2048)}` }).param).toBe('url');
    expect(refusal(webhookEndpointCreateSchema, { ...valid, description: 'é'.repeat(501) }).param).toBe('description');
    expect(webhookEndpointCreateSchema.safeParse({ ...valid, description: 'é'.repeat(500) }).success).toBe(true);
  });
});

describe('PATCH /v1/webhook-endpoints/{endpoint_id} body', () => {
  it('takes any of url, events, description (null clears) and enabled', () => {
    expect(webhookEndpointUpdateSchema.parse({ enabled: false })).toEqual({ enabled: false });
    expect(webhookEndpointUpdateSchema.parse({ description: null })).toEqual({ description: null });
    expect(webhookEndpointUpdateSchema.parse({ ...valid, description: 'x', enabled: true })).toEqual({ ...valid, description: 'x', enabled: true });
  });

  it('needs at least one field and refuses unknown ones', () => {
    expect(refusal(webhookEndpointUpdateSchema, {}).message).toMatch(/at least one field/);
    expect(refusal(webhookEndpointUpdateSchema, { secrets: [] }).param).toBe('secrets');
    expect(refusal(webhookEndpointUpdateSchema, { enabled: 'no' }).param).toBe('enabled');
    expect(refusal(webhookEndpointUpdateSchema, { events: [] }).param).toBe('events');
  });
});
