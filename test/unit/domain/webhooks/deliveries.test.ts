import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../functions/domain/errors.js';
import { attemptDelivery, deliveryIdFor, fanOut, MAX_DELIVERY_ATTEMPTS, retryDelivery } from '../../../../functions/domain/webhooks/deliveries.js';
import { retryDelaysMs } from '../../../../functions/domain/webhooks/schedule.js';
import { ACCOUNT_ID, OTHER_ACCOUNT_ID } from '../../../helpers/unit-fixtures.js';
import { endpoint, event, harness, OLD_SECRET, SECRET } from './fakes.js';

const A = 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a0a';
const B = 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a0b';
const C = 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a0c';
const D = 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a0d';

describe('deliveryIdFor', () => {
  it('is the same for the same event and endpoint, different otherwise, and sorts by event time', () => {
    const first = deliveryIdFor(event(), A);
    expect(first).toMatch(/^dlv_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(deliveryIdFor(event(), A)).toBe(first);
    expect(deliveryIdFor(event(), B)).not.toBe(first);
    expect(deliveryIdFor(event({ id: 'evt_0000000000000000000000000000000b' }), A)).not.toBe(first);
    // A UUIDv7 of the event's time: the log's newest-first order is event order.
    expect(first.slice(4, 16)).toBe(Date.parse(event().created_at).toString(16).padStart(12, '0'));
    const later = deliveryIdFor(event({ id: 'evt_0000000000000000000000000000000a', created_at: '2026-01-02T00:00:00.001Z' }), A);
    expect(later > first).toBe(true);
  });
});

describe('fanOut', () => {
  it('creates one delivery per enabled endpoint subscribed to the type, and POSTs each at once, signed', async () => {
    const h = harness({
      endpoints: [
        endpoint({ endpointId: A, url: 'https://a.example.com/hook' }),
        endpoint({ endpointId: B, url: 'https://b.example.com/hook', events: ['upload.ready'] }),
        endpoint({ endpointId: C, url: 'https://c.example.com/hook', enabled: false }),
        endpoint({ endpointId: D, url: 'https://d.example.com/hook', accountId: OTHER_ACCOUNT_ID }),
      ],
    });
    const sent = event();
    const deliveries = await fanOut(h.deps, ACCOUNT_ID, sent);

    expect(deliveries.map((d) => [d.endpointId, d.status])).toEqual([[A, 'succeeded']]);
    expect(h.calls).toHaveLength(1);
    const [call] = h.calls;
    expect(call!.url).toBe('https://a.example.com/hook');
    expect(call!.body).toBe(JSON.stringify(sent));
    const now = h.time.clock();
    expect(call!.headers).toEqual({
      'content-type': 'application/json',
      'webhook-id': sent.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': `v1,LaSw:${sent.id}:${now.getTime()}:${call!.body.length}`,
    });
    const [stored] = h.deliveries.all();
    expect(stored).toMatchObject({
      accountId: ACCOUNT_ID,
      endpointId: A,
      eventId: sent.id,
      eventType: 'run.completed',
      payload: call!.body,
      status: 'succeeded',
      nextAttemptAt: null,
    });
    expect(stored!.deliveryId).toMatch(/^dlv_[0-9a-f]{32}$/);
    expect(stored!.attempts).toEqual([{ at: now.toISOString(), statusCode: 200, durationMs: 12, responseBody: 'answer 200' }]);
    expect(h.scheduled).toEqual([]);
  });

  it('creates each delivery once however often the event arrives, and sends a succeeded one once', async () => {
    const h = harness({ endpoints: [endpoint({ endpointId: A }), endpoint({ endpointId: B })] });
    await fanOut(h.deps, ACCOUNT_ID, event());
    await fanOut(h.deps, ACCOUNT_ID, event());
    expect(h.deliveries.all()).toHaveLength(2);
    expect(h.calls).toHaveLength(2);
  });

  it('attempts on a repeat what an earlier fan-out left pending and due (it died before its attempt)', async () => {
    const h = harness();
    const { transport } = h.deps;
    h.deps.transport = { post: () => Promise.reject(new Error('the process died')) };
    await expect(fanOut(h.deps, ACCOUNT_ID, event())).rejects.toThrow('the process died');
    expect(h.deliveries.all()[0]).toMatchObject({ status: 'pending', attempts: [] });

    h.deps.transport = transport;
    const [again] = await fanOut(h.deps, ACCOUNT_ID, event());
    expect(again).toMatchObject({ status: 'succeeded' });
    expect(h.deliveries.all()).toHaveLength(1);
  });

  it('on a repeat re-arms the wake-up of a pending delivery not yet due (its scheduling may have failed), sending nothing', async () => {
    const h = harness({ script: [503] });
    await fanOut(h.deps, ACCOUNT_ID, event());
    const due = h.deliveries.all()[0]!.nextAttemptAt!;
    h.scheduled.length = 0;
    await fanOut(h.deps, ACCOUNT_ID, event());
    expect(h.calls).toHaveLength(1);
    expect(h.scheduled.map((s) => s.at.toISOString())).toEqual([due]);
  });

  it('sends nothing and creates nothing while delivery is off for the deployment or the account', async () => {
    const off = harness({ deploymentEnabled: false });
    expect(await fanOut(off.deps, ACCOUNT_ID, event())).toEqual([]);
    const accountOff = harness({ account: { eventDeliveryDisabled: true } });
    expect(await fanOut(accountOff.deps, ACCOUNT_ID, event())).toEqual([]);
    const unknown = harness();
    expect(await fanOut(unknown.deps, OTHER_ACCOUNT_ID, event())).toEqual([]);
    for (const h of [off, accountOff, unknown]) {
      expect(h.deliveries.all()).toEqual([]);
      expect(h.calls).toEqual([]);
    }
  });

  it('delivers webhook.test only to the endpoint it names, subscribed or not, and only within the account', async () => {
    const h = harness({
      endpoints: [
        endpoint({ endpointId: A, events: ['upload.failed'] }),
        endpoint({ endpointId: B }),
        endpoint({ endpointId: D, accountId: OTHER_ACCOUNT_ID }),
      ],
    });
    const test = (endpointId: string) =>
      event({ id: `evt_${endpointId.slice(4)}`, type: 'webhook.test', data: { object: { object: 'webhook_endpoint', endpoint_id: endpointId } } });
    expect((await fanOut(h.deps, ACCOUNT_ID, test(A))).map((d) => d.endpointId)).toEqual([A]);
    expect(await fanOut(h.deps, ACCOUNT_ID, test(D))).toEqual([]);
    expect(await fanOut(h.deps, ACCOUNT_ID, event({ type: 'webhook.test', data: { object: {} } }))).toEqual([]);
    expect(h.calls).toHaveLength(1);
  });
});

describe('attemptDelivery', () => {
  it('retries on the schedule after each failure (from the end of the attempt), then fails the delivery after 8 attempts', async () => {
    const h = harness({ script: [500, 'timeout', 'connect_failed', 302, 404, 'target_refused', 500, 503] });
    const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
    for (let attempt = 2; attempt <= 8; attempt++) {
      const wake = h.scheduled.at(-1)!;
      expect(wake.at.getTime() - h.time.clock().getTime()).toBe(retryDelaysMs[attempt - 1]);
      h.time.set(wake.at.toISOString());
      await attemptDelivery(h.deps, ACCOUNT_ID, wake.deliveryId);
    }
    const [done] = h.deliveries.all();
    expect(done).toMatchObject({ deliveryId: created!.deliveryId, status: 'failed', nextAttemptAt: null });
    expect(done!.attempts.map((a) => a.statusCode ?? a.error)).toEqual([500, 'timeout', 'connect_failed', 302, 404, 'target_refused', 500, 503]);
    expect(h.scheduled).toHaveLength(7);
    // Every attempt carried the same event id, each its own timestamp.
    expect(new Set(h.calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([event().id]));
    expect(new Set(h.calls.map((c) => c.headers['webhook-timestamp'])).size).toBe(8);
    expect(new Set(h.calls.map((c) => c.body)).size).toBe(1);
  });

  it('delivers to a receiver that fails N times and then recovers, with the same event id', async () => {
    const h = harness({ script: [500, 502, 'timeout', 204], retryScale: 0.001 });
    await fanOut(h.deps, ACCOUNT_ID, event());
    while (h.deliveries.all()[0]!.status === 'pending') {
      const wake = h.scheduled.at(-1)!;
      h.time.set(wake.at.toISOString());
      await attemptDelivery(h.deps, ACCOUNT_ID, wake.deliveryId);
    }
    expect(h.deliveries.all()[0]).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    expect(h.calls.map((c) => c.headers['webhook-id'])).toEqual(Array(4).fill(event().id));
    // Scaled: 5 ms, 300 ms, 1.8 s.
    const gaps = h.deliveries
      .all()[0]!
      .attempts.slice(1)
      .map((a, i, rest) => Date.parse(a.at) - Date.parse(i ? rest[i - 1]!.at : h.deliveries.all()[0]!.attempts[0]!.at));
    expect(gaps).toEqual([5, 300, 1_800]);
  });

  it('an early wake-up re-arms for the due time and sends nothing; a wake-up for a terminal delivery does nothing', async () => {
    const h = harness({ script: [500, 200] });
    const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
    const due = h.scheduled[0]!.at;
    await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId);
    expect(h.calls).toHaveLength(1);
    expect(h.scheduled.map((s) => s.at)).toEqual([due, due]);

    h.time.set(new Date(due.getTime() - 500).toISOString()); // within the tolerance
    expect(await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId)).toMatchObject({ status: 'succeeded' });
    expect(await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId)).toMatchObject({ status: 'succeeded' });
    expect(h.calls).toHaveLength(2);
    expect(await attemptDelivery(h.deps, ACCOUNT_ID, 'dlv_00000000000000000000000000000000')).toBeUndefined();
    expect(await attemptDelivery(h.deps, OTHER_ACCOUNT_ID, created!.deliveryId)).toBeUndefined();
  });

  it('fails the delivery without a POST when its endpoint was disabled or deleted, or delivery was switched off', async () => {
    for (const [change, error] of [
      [(h: ReturnType<typeof harness>) => (h.endpoints[0]!.enabled = false), 'endpoint_disabled'],
      [(h: ReturnType<typeof harness>) => h.endpoints.pop(), 'endpoint_deleted'],
      [(h: ReturnType<typeof harness>) => (h.account.eventDeliveryDisabled = true), 'event_delivery_unavailable'],
    ] as const) {
      const h = harness({ script: [500] });
      const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
      change(h);
      h.time.set(h.scheduled[0]!.at.toISOString());
      const after = await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId);
      expect(after, error).toMatchObject({ status: 'failed', nextAttemptAt: null });
      expect(after!.attempts.at(-1), error).toMatchObject({ error, durationMs: 0 });
      expect(h.calls, error).toHaveLength(1);
      expect(h.scheduled, error).toHaveLength(1);
    }
  });

  it('signs with every secret that has not expired: both during a rotation, the current one after', async () => {
    const h = harness({ script: [500] });
    h.endpoints[0]!.secrets = [{ secret: SECRET }, { secret: OLD_SECRET, expiresAt: '2026-01-03T00:00:00.000Z' }];
    const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
    expect(h.calls[0]!.headers['webhook-signature']!.split(' ').map((s) => s.slice(0, 7))).toEqual(['v1,LaSw', 'v1,LaSw']);
    expect(h.sign).toHaveBeenLastCalledWith(event().id, h.time.clock(), JSON.stringify(event()), [SECRET, OLD_SECRET]);
    h.time.set('2026-01-03T00:00:00.000Z');
    await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId);
    expect(h.sign).toHaveBeenLastCalledWith(event().id, h.time.clock(), JSON.stringify(event()), [SECRET]);
  });

  it('records nothing and schedules nothing when another sender recorded this attempt first', async () => {
    const h = harness({ script: [500] });
    const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
    h.time.set(h.scheduled[0]!.at.toISOString());
    const recordAttempt = h.deliveries.recordAttempt.bind(h.deliveries);
    h.deliveries.recordAttempt = async (...args) => {
      // The other sender's attempt lands while this one is at the receiver.
      await recordAttempt({ ...args[0] }, { at: 'x', statusCode: 200, durationMs: 1 }, { status: 'succeeded', nextAttemptAt: null }, 'x');
      return recordAttempt(...args);
    };
    const after = await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId);
    expect(after).toMatchObject({ status: 'succeeded', attempts: [{ statusCode: 500 }, { statusCode: 200 }] });
    expect(h.scheduled).toHaveLength(1);
  });
});

describe('retryDelivery', () => {
  async function failedDelivery(script: (number | string)[]) {
    const h = harness({ script });
    const [created] = await fanOut(h.deps, ACCOUNT_ID, event());
    h.endpoints[0]!.enabled = false;
    h.time.set(h.scheduled[0]!.at.toISOString());
    await attemptDelivery(h.deps, ACCOUNT_ID, created!.deliveryId);
    h.endpoints[0]!.enabled = true;
    return { h, deliveryId: created!.deliveryId };
  }

  it('reopens a failed delivery and wakes the sender now; that one attempt decides (a failure fails it again)', async () => {
    const { h, deliveryId } = await failedDelivery([500]);
    const reopened = await retryDelivery(h.deps, ACCOUNT_ID, deliveryId);
    const now = h.time.clock();
    expect(reopened).toMatchObject({ status: 'pending', nextAttemptAt: now.toISOString(), manualRetry: true });
    expect(h.scheduled.at(-1)).toEqual({ accountId: ACCOUNT_ID, deliveryId, at: now });
    const after = await attemptDelivery(h.deps, ACCOUNT_ID, deliveryId);
    expect(after).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(after!.attempts.map((a) => a.statusCode ?? a.error)).toEqual([500, 'endpoint_disabled', 500]);
    expect(h.calls.map((c) => c.headers['webhook-id'])).toEqual([event().id, event().id]);
  });

  it('a retry that succeeds ends the delivery succeeded', async () => {
    const { h, deliveryId } = await failedDelivery([500, 200]);
    await retryDelivery(h.deps, ACCOUNT_ID, deliveryId);
    expect(await attemptDelivery(h.deps, ACCOUNT_ID, deliveryId)).toMatchObject({ status: 'succeeded' });
  });

  it('refuses a pending or succeeded delivery (409), an unknown or foreign one (404), and retries while delivery is off (503)', async () => {
    const { h, deliveryId } = await failedDelivery([500, 200]);
    await retryDelivery(h.deps, ACCOUNT_ID, deliveryId);
    await expect(retryDelivery(h.deps, ACCOUNT_ID, deliveryId)).rejects.toMatchObject({ code: 'delivery_not_retryable' });
    await attemptDelivery(h.deps, ACCOUNT_ID, deliveryId);
    await expect(retryDelivery(h.deps, ACCOUNT_ID, deliveryId)).rejects.toMatchObject({ code: 'delivery_not_retryable', status: 409 });
    await expect(retryDelivery(h.deps, OTHER_ACCOUNT_ID, deliveryId)).rejects.toMatchObject({ code: 'not_found' });

    const off = await failedDelivery([500]);
    off.h.account.eventDeliveryDisabled = true;
    await expect(retryDelivery(off.h.deps, ACCOUNT_ID, off.deliveryId)).rejects.toBeInstanceOf(ApiError);
    await expect(retryDelivery(off.h.deps, ACCOUNT_ID, off.deliveryId)).rejects.toMatchObject({ code: 'event_delivery_unavailable' });
  });

  it('refuses a delivery that has made as many attempts as a delivery keeps', async () => {
    const { h, deliveryId } = await failedDelivery([500]);
    const stored = h.deliveries.byId.get(deliveryId)!;
    stored.attempts = Array.from({ length: MAX_DELIVERY_ATTEMPTS }, () => ({ at: stored.createdAt, statusCode: 500, durationMs: 1 }));
    await expect(retryDelivery(h.deps, ACCOUNT_ID, deliveryId)).rejects.toMatchObject({ code: 'delivery_not_retryable' });
  });
});
