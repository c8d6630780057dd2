import { describe, expect, it } from 'vitest';
import type { WebhookEndpointRecord } from '../../../functions/domain/webhooks/model.js';
import {
  presentDeletedWebhookEndpoint,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
  presentWebhookTest,
} from '../../../functions/resources/webhook-endpoints/presenter.js';
import { presentList } from '../../../functions/resources/common/list.js';
import { OpenApiContract } from '../../helpers/openapi-contract.js';
import { ACCOUNT_ID } from '../../helpers/unit-fixtures.js';

/** openapi.json as committed (openapi.test.ts checks that it is what the schemas generate). */
const contract = new OpenApiContract();

const current = 'whsec_Y3VycmVudC1zZWNyZXQtb2YtdGhpcnR5LXR3by1ieXRlcyE=';
const rotatedOut = 'whsec_cm90YXRlZC1vdXQtc2VjcmV0LW9mLTMyLWJ5dGVzLi4uLi4=';
const endpoint: WebhookEndpointRecord = {
  endpointId: 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
  accountId: ACCOUNT_ID,
  url: 'https://hooks.example.com/in',
  events: ['run.completed', 'analysis.failed'],
  description: null,
  enabled: true,
  secrets: [{ secret: current }, { secret: rotatedOut, expiresAt: '2026-03-02T10:00:00.000Z' }],
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T11:00:00.000Z',
};

describe('webhook endpoint presenters', () => {
  it.each<[string, unknown]>([
    ['WebhookEndpoint', presentWebhookEndpoint(endpoint)],
    ['WebhookEndpoint', presentWebhookEndpoint({ ...endpoint, description: 'prod', enabled: false })],
    ['WebhookEndpointWithSecret', presentWebhookEndpointWithSecret(endpoint, current)],
    ['WebhookEndpointList', presentList({ items: [endpoint], nextCursor: 'opaque' }, presentWebhookEndpoint)],
    ['DeletedWebhookEndpoint', presentDeletedWebhookEndpoint(endpoint.endpointId)],
    [
      'WebhookTest',
      presentWebhookTest(endpoint, {
        id: 'evt_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
        type: 'webhook.test',
        created_at: '2026-03-01T11:00:00.000Z',
        data: { object: {} },
      }),
    ],
  ])('shape a valid %s', (name, value) => {
    expect(contract.validateComponent(name, value)).toBeUndefined();
  });

  it('never show a secret but in the answer that made it', () => {
    const shown = JSON.stringify(presentWebhookEndpoint(endpoint));
    expect(shown).not.toMatch(/whsec_|secret/);
    expect(presentWebhookEndpointWithSecret(endpoint, current).secret).toBe(current);
    expect(JSON.stringify(presentWebhookEndpointWithSecret(endpoint, current))).not.toContain(rotatedOut);
  });

  it('copy the event list, so a presented endpoint never aliases the record', () => {
    const presented = presentWebhookEndpoint(endpoint);
    expect(presented.events).toEqual(endpoint.events);
    expect(presented.events).not.toBe(endpoint.events);
  });
});
