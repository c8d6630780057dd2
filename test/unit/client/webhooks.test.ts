/** verifyWebhook: Standard Webhooks signatures, as the service signs deliveries (DESIGN §8). */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../packages/client/src/index.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const event = { id: 'evt_1', type: 'run.completed', created_at: '2026-11-23T10:15:30.123Z', data: { object: { object: 'run', run_id: 'run_1' } } };
const body = JSON.stringify(event);

function signed(payload: string, at = new Date()) {
  const signature = new Webhook(secret).sign('evt_1', at, payload);
  return { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed with the endpoint secret, from plain or Headers headers', () => {
    expect(verifyWebhook(body, signed(body), secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), new Headers(signed(body)), secret).data.object).toEqual({ object: 'run', run_id: 'run_1' });
  });

  it('refuses a changed body, another secret, a missing signature and a stale timestamp', () => {
    expect(() => verifyWebhook(body.replace('run_1', 'run_2'), signed(body), secret)).toThrow();
    expect(() => verifyWebhook(body, signed(body), `whsec_${randomBytes(24).toString('base64')}`)).toThrow();
    expect(() => verifyWebhook(body, { ...signed(body), 'webhook-signature': undefined }, secret)).toThrow();
    expect(() => verifyWebhook(body, signed(body, new Date(Date.now() - 10 * 60_000)), secret)).toThrow();
  });
});
