/**
 * Webhook delivery end to end on the local host (DESIGN 8, 10): events the service emits reach
 * the endpoints subscribed to them, signed (verified here with the Standard Webhooks reference
 * library), retried on the compressed schedule of the shared host (WEBHOOK_RETRY_SCALE in
 * local-host-setup.ts: a delivery fails after about 10 s), listed in the delivery log, retried on
 * request, and resumed by a restarted host.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { api, clientFor, createAccount, createScanner, expectError, type Client, type List } from '../helpers/api.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { createPendingUpload, putBytes, sleep, startRun, toneWav, uploadFile, waitForCompleted, type Upload } from '../helpers/runs.js';
import { unreadableFile } from '../helpers/ground-truth-media.js';
import { startWebhookReceiver, type Hook, type Received, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Endpoint {
  endpoint_id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret: string;
}

interface Attempt {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

interface Delivery {
  object: 'webhook_delivery';
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Attempt[];
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

const eventIdPattern = /^evt_[0-9a-f]{32}$/;
const deliveryIdPattern = /^dlv_[0-9a-f]{32}$/;

async function createEndpoint(client: Client, hook: Hook, events: string[]): Promise<Endpoint> {
  const response = await client.post<Endpoint>('/v1/webhook-endpoints', { url: hook.url, events });
  expect(response.status, response.text).toBe(201);
  hook.secrets.push(response.body.secret);
  return response.body;
}

/** POST /v1/webhook-endpoints/{id}/test; returns the event id. */
async function sendTest(client: Client, endpointId: string): Promise<string> {
  const response = await client.post<{ event_id: string }>(`/v1/webhook-endpoints/${endpointId}/test`);
  expect(response.status, response.text).toBe(202);
  return response.body.event_id;
}

async function listDeliveries(client: Client, query: Record<string, string>): Promise<{ deliveries: Delivery[]; text: string }> {
  const response = await client.get<List<Delivery>>(`/v1/webhook-deliveries?${new URLSearchParams({ limit: '100', ...query }).toString()}`);
  expect(response.status, response.text).toBe(200);
  return { deliveries: response.body.data, text: response.text };
}

/** Polls the delivery log until `done` holds for the deliveries the query lists. */
async function waitForDeliveries(
  client: Client,
  query: Record<string, string>,
  done: (deliveries: Delivery[]) => boolean,
  timeoutMs = 30_000,
): Promise<Delivery[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { deliveries } = await listDeliveries(client, query);
    if (done(deliveries)) return deliveries;
    if (Date.now() > deadline)
      throw new Error(`delivery log for ${JSON.stringify(query)} never matched: ${JSON.stringify(deliveries, null, 1).slice(0, 3000)}`);
    await sleep(100);
  }
}

/** A signed Standard Webhooks request carrying DESIGN 8's payload, verified under exactly `secrets`. */
function expectSigned(received: Received, secrets: string[]): void {
  expect(received.verifiedWith, `signatures of ${received.id}`).toEqual(secrets);
  expect(received.signatures).toHaveLength(secrets.length);
  for (const signature of received.signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
  expect(received.contentType).toBe('application/json');
  expect(received.id).toBe(received.event.id);
  expect(received.event.id).toMatch(eventIdPattern);
  expect(Object.keys(received.event)).toEqual(['id', 'type', 'created_at', 'data']);
  expect(Object.keys(received.event.data)).toEqual(['object']);
  expect(Math.abs(Number(received.timestamp) - Date.now() / 1000)).toBeLessThan(60);
}

let receiver: WebhookReceiver;
let client: Client;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  client = clientFor((await createAccount({ credits: 1000 })).apiKey);
});

afterAll(() => receiver.close());

describe('webhook delivery', () => {
  test('delivers upload.ready, upload.failed and run.completed, signed, to the enabled endpoints subscribed to each; others get nothing', async () => {
    const all = receiver.hook('/all');
    const runsOnly = receiver.hook('/runs-only');
    const disabled = receiver.hook('/disabled');
    const subscribed = ['upload.ready', 'upload.failed', 'run.completed', 'run.failed'];
    const allEndpoint = await createEndpoint(client, all, subscribed);
    const runsEndpoint = await createEndpoint(client, runsOnly, ['run.completed']);
    const disabledEndpoint = await createEndpoint(client, disabled, subscribed);
    const patched = await client.patch(`/v1/webhook-endpoints/${disabledEndpoint.endpoint_id}`, { enabled: false });
    expect(patched.status, patched.text).toBe(200);

    const ready = await uploadFile(client, await toneWav(3));
    const bad = await createPendingUpload(client, await unreadableFile(), 'video/mp4');
    await putBytes(bad, await unreadableFile());
    const failed = await client.post<Upload>(`/v1/uploads/${bad.upload_id}/complete`);
    expect(failed.body.status, failed.text).toBe('failed');
    const scanner = await createScanner(client, { name: 'webhook summary', type: 'summarizer', instructions: 'Summarize the recording' });
    const run = await waitForCompleted(client, (await startRun(client, scanner.scanner_id, { upload_id: ready.upload_id })).run_id);

    const readyEvent = await all.waitFor((r) => r.event.type === 'upload.ready' && r.event.data.object.upload_id === ready.upload_id);
    const failedEvent = await all.waitFor((r) => r.event.type === 'upload.failed' && r.event.data.object.upload_id === bad.upload_id);
    const runEvent = await all.waitFor((r) => r.event.type === 'run.completed' && r.event.data.object.run_id === run.run_id);
    const runsOnlyEvent = await runsOnly.waitFor((r) => r.event.type === 'run.completed');
    for (const received of [readyEvent, failedEvent, runEvent]) expectSigned(received, [allEndpoint.secret]);
    expectSigned(runsOnlyEvent, [runsEndpoint.secret]);
    // The record as GET returns it.
    expect(readyEvent.event.data.object).toMatchObject({ object: 'upload', upload_id: ready.upload_id, status: 'ready' });
    expect(failedEvent.event.data.object).toMatchObject({ object: 'upload', status: 'failed', error: { code: failed.body.error?.code } });
    expect(runEvent.event.data.object).toEqual((await client.get(`/v1/runs/${run.run_id}`)).body);
    // One event, one id, to every endpoint.
    expect(runsOnlyEvent.id).toBe(runEvent.id);

    // analysis.completed went out with run.completed: no one here subscribes to it.
    await sleep(1_500);
    expect(all.received.map((r) => r.event.type).sort()).toEqual(['run.completed', 'upload.failed', 'upload.ready']);
    expect(runsOnly.received.map((r) => r.event.type)).toEqual(['run.completed']);
    expect(disabled.received).toEqual([]);

    // The delivery log: one delivery per event and endpoint, newest first, each with its attempt.
    const { deliveries, text } = await listDeliveries(client, { endpoint_id: allEndpoint.endpoint_id });
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set([readyEvent.id, failedEvent.id, runEvent.id]));
    expect(deliveries.map((d) => d.created_at)).toEqual(
      deliveries
        .map((d) => d.created_at)
        .sort()
        .reverse(),
    );
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ object: 'webhook_delivery', endpoint_id: allEndpoint.endpoint_id, status: 'succeeded', next_attempt_at: null });
      expect(delivery.delivery_id).toMatch(deliveryIdPattern);
      expect(delivery.attempts).toEqual([
        { at: expect.any(String) as string, status_code: 200, error: null, duration_ms: expect.any(Number) as number, response_body: 'answered 200' },
      ]);
    }
    // Secrets, the URL and the payload never appear in the log.
    for (const secret of [allEndpoint.secret, runsEndpoint.secret]) expect(text).not.toContain(secret.slice(6));
    expect(text).not.toContain(receiver.base);
    expect(text).not.toMatch(/"object":"(run|upload)"|payload|signature/);

    const byType = await listDeliveries(client, { endpoint_id: allEndpoint.endpoint_id, event_type: 'upload.failed' });
    expect(byType.deliveries.map((d) => d.event_id)).toEqual([failedEvent.id]);
    const byEvent = await listDeliveries(client, { event_id: runEvent.id });
    expect(byEvent.deliveries.map((d) => d.endpoint_id).sort()).toEqual([allEndpoint.endpoint_id, runsEndpoint.endpoint_id].sort());
    expect((await listDeliveries(client, { endpoint_id: allEndpoint.endpoint_id, status: 'failed' })).deliveries).toEqual([]);
    expect((await listDeliveries(client, { endpoint_id: disabledEndpoint.endpoint_id })).deliveries).toEqual([]);
    expectError(await client.get('/v1/webhook-deliveries?status=lost'), 400, 'validation_failed', 'status');
  }, 120_000);

  test('sends webhook.test only to the endpoint it names, whatever it subscribes to', async () => {
    const named = receiver.hook('/test-named');
    const other = receiver.hook('/test-other');
    const endpoint = await createEndpoint(client, named, ['render.failed']);
    await createEndpoint(client, other, ['render.failed']);
    const eventId = await sendTest(client, endpoint.endpoint_id);
    const received = await named.waitFor((r) => r.id === eventId);
    expectSigned(received, [endpoint.secret]);
    expect(received.event).toMatchObject({ type: 'webhook.test', data: { object: { object: 'webhook_endpoint', endpoint_id: endpoint.endpoint_id } } });
    await sleep(500);
    expect(other.received).toEqual([]);
    expect(named.received).toHaveLength(1);
  });

  test('a receiver that fails three times and then recovers gets the same event, with the same id, on the schedule', async () => {
    const flaky = receiver.hook('/flaky');
    flaky.answer = (n) => (n === 0 ? { status: 500 } : n === 1 ? 'reset' : n === 2 ? { status: 503, body: 'busy' } : { status: 204 });
    const endpoint = await createEndpoint(client, flaky, ['render.failed']);
    const eventId = await sendTest(client, endpoint.endpoint_id);
    const [delivery] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'succeeded');
    expect(flaky.received.map((r) => r.answered)).toEqual([500, 'reset', 503, 204]);
    for (const received of flaky.received) {
      expect(received.id).toBe(eventId);
      expectSigned(received, [endpoint.secret]);
    }
    expect(new Set(flaky.received.map((r) => r.rawBody)).size).toBe(1);
    expect(delivery!.attempts.map((a) => a.status_code ?? a.error)).toEqual([500, 'network_error', 503, 204]);
    expect(delivery!.attempts[2]!.response_body).toBe('busy');
    const times = delivery!.attempts.map((a) => Date.parse(a.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  test('never follows a 3xx, to a forbidden address or anywhere: the attempt fails and the delivery retries', async () => {
    const toMetadata = receiver.hook('/redirect-forbidden');
    toMetadata.answer = () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' }, body: 'moved' });
    const toCanary = receiver.hook('/redirect-loopback');
    toCanary.answer = () => ({ status: 307, headers: { location: `${receiver.base}/canary` } });
    const forbidden = await createEndpoint(client, toMetadata, ['render.failed']);
    const loopback = await createEndpoint(client, toCanary, ['render.failed']);
    const forbiddenEvent = await sendTest(client, forbidden.endpoint_id);
    const loopbackEvent = await sendTest(client, loopback.endpoint_id);

    for (const [eventId, status] of [
      [forbiddenEvent, 302],
      [loopbackEvent, 307],
    ] as const) {
      const [delivery] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => (d?.attempts.length ?? 0) >= 2);
      expect(delivery!.status).toBe('pending');
      expect(delivery!.attempts.slice(0, 2).map((a) => [a.status_code, a.error])).toEqual([
        [status, null],
        [status, null],
      ]);
    }
    expect(receiver.strays).toEqual([]);

    // Deleting the endpoints ends their deliveries at the next attempt, without a request.
    for (const endpoint of [forbidden, loopback]) expect((await client.send('DELETE', `/v1/webhook-endpoints/${endpoint.endpoint_id}`)).status).toBe(200);
    for (const eventId of [forbiddenEvent, loopbackEvent]) {
      const [ended] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'failed');
      expect(ended!.attempts.at(-1)).toMatchObject({ status_code: null, error: 'endpoint_deleted', duration_ms: 0 });
      expect(ended!.next_attempt_at).toBeNull();
    }
    expect(receiver.strays).toEqual([]);
  });

  test('an endpoint whose name does not resolve yet is created; each attempt resolves it again and fails with dns_failed', async () => {
    // .invalid never resolves (RFC 6761): a receiver whose DNS is not set up yet.
    const response = await client.post<Endpoint>('/v1/webhook-endpoints', { url: 'https://hooks.receiver.invalid/in', events: ['render.failed'] });
    expect(response.status, response.text).toBe(201);
    expect(response.body.url).toBe('https://hooks.receiver.invalid/in');
    const eventId = await sendTest(client, response.body.endpoint_id);
    const [delivery] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => (d?.attempts.length ?? 0) >= 2);
    expect(delivery!.status).toBe('pending');
    for (const attempt of delivery!.attempts) expect(attempt).toMatchObject({ status_code: null, error: 'dns_failed', response_body: null });
    expect((await client.send('DELETE', `/v1/webhook-endpoints/${response.body.endpoint_id}`)).status).toBe(200);
  });

  test('after a secret rotation, deliveries carry a signature under each secret, and each verifies alone', async () => {
    const rotating = receiver.hook('/rotating');
    const endpoint = await createEndpoint(client, rotating, ['render.failed']);
    const rotated = await client.post<Endpoint>(`/v1/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    rotating.secrets.push(rotated.body.secret);
    const eventId = await sendTest(client, endpoint.endpoint_id);
    const received = await rotating.waitFor((r) => r.id === eventId);
    expectSigned(received, [endpoint.secret, rotated.body.secret]);
  });

  test('the delivery log shows every attempt of a delivery that failed; a retry sends it once more, now', async () => {
    const down = receiver.hook('/down');
    down.answer = () => ({ status: 500, body: 'x'.repeat(3_000) });
    const endpoint = await createEndpoint(client, down, ['render.failed']);
    const eventId = await sendTest(client, endpoint.endpoint_id);
    const [failed] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'failed', 45_000);
    expect(failed).toMatchObject({ endpoint_id: endpoint.endpoint_id, event_type: 'webhook.test', next_attempt_at: null });
    expect(failed!.attempts).toHaveLength(8);
    for (const attempt of failed!.attempts) {
      expect(attempt).toMatchObject({ status_code: 500, error: null });
      expect(attempt.response_body).toBe('x'.repeat(1024));
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(down.received).toHaveLength(8);
    expect(new Set(down.received.map((r) => r.id))).toEqual(new Set([eventId]));
    // The schedule, compressed 10,000 times: the last gaps are 3.6 s.
    const times = failed!.attempts.map((a) => Date.parse(a.at));
    expect(times.at(-1)! - times.at(-2)!).toBeGreaterThanOrEqual(3_500);

    // The receiver is fixed: a retry sends the same event once more, now.
    down.answer = () => ({ status: 200 });
    const retry = await client.post<Delivery>(`/v1/webhook-deliveries/${failed!.delivery_id}/retry`);
    expect(retry.status, retry.text).toBe(202);
    const [succeeded] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'succeeded');
    expect(succeeded!.attempts).toHaveLength(9);
    expect(succeeded!.attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
    expect(down.received.map((r) => r.id)).toEqual(Array(9).fill(eventId));
    expectSigned(down.received.at(-1)!, [endpoint.secret]);
  }, 90_000);

  test('retry answers 202 with the pending delivery, 409 unless it is failed, 404 for an unknown one', async () => {
    const broken = receiver.hook('/broken');
    broken.answer = () => ({ status: 410 });
    const endpoint = await createEndpoint(client, broken, ['render.failed']);
    const eventId = await sendTest(client, endpoint.endpoint_id);
    // Disabled while it is retrying: the next attempt ends the delivery without a request.
    await broken.waitForCount((r) => r.id === eventId, 3);
    await client.patch(`/v1/webhook-endpoints/${endpoint.endpoint_id}`, { enabled: false });
    const [failed] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'failed');
    const outcomes = failed!.attempts.map((a) => a.status_code ?? a.error);
    expect(outcomes.at(-1)).toBe('endpoint_disabled');
    expect(outcomes.slice(0, -1)).toEqual(Array(broken.received.length).fill(410));

    await client.patch(`/v1/webhook-endpoints/${endpoint.endpoint_id}`, { enabled: true });
    broken.answer = () => ({ status: 200 });
    const retry = await client.post<Delivery>(`/v1/webhook-deliveries/${failed!.delivery_id}/retry`);
    expect(retry.status, retry.text).toBe(202);
    expect(retry.body).toMatchObject({ delivery_id: failed!.delivery_id, status: 'pending', attempts: failed!.attempts });
    expect(retry.body.next_attempt_at).not.toBeNull();
    const [succeeded] = await waitForDeliveries(client, { event_id: eventId }, ([d]) => d?.status === 'succeeded');
    expect(succeeded!.attempts.map((a) => a.status_code ?? a.error)).toEqual([...outcomes, 200]);
    expect(broken.received.map((r) => r.answered).at(-1)).toBe(200);
    expect(new Set(broken.received.map((r) => r.id))).toEqual(new Set([eventId]));

    expectError(await client.post(`/v1/webhook-deliveries/${failed!.delivery_id}/retry`), 409, 'delivery_not_retryable');
    expectError(await client.post('/v1/webhook-deliveries/dlv_00000000000000000000000000000000/retry'), 404, 'not_found');
    const stranger = clientFor((await createAccount({ credits: 0 })).apiKey);
    expectError(await stranger.post(`/v1/webhook-deliveries/${failed!.delivery_id}/retry`), 404, 'not_found');
    expect((await listDeliveries(stranger, {})).deliveries).toEqual([]);
  });
});

describe('webhook delivery across a host restart', () => {
  const hosts = hostsOnOwnData('mss-webhooks-restart-');
  afterAll(() => hosts.cleanUp());

  test('a receiver down through a host restart still gets the event: pending deliveries live in the table', async () => {
    const own = await startWebhookReceiver();
    try {
      const hook = own.hook('/through-restart');
      // 10 ms, 0.6 s, 3.6 s, 14.4 s, ...: still pending when the host stops, due again soon after it starts.
      const env = { LOCAL_ALLOW_LOOPBACK_TARGETS: '1', WEBHOOK_RETRY_SCALE: '0.002' };
      const first = await hosts.start(env);
      const firstClient = api(first.baseUrl, first.apiKey);
      const endpoint = await createEndpoint(firstClient, hook, ['render.failed']);
      await own.pause();
      const eventId = await sendTest(firstClient, endpoint.endpoint_id);
      await waitForDeliveries(firstClient, { event_id: eventId }, ([d]) => (d?.attempts.length ?? 0) >= 2);
      first.child.kill('SIGINT');
      expect(await first.exited).toEqual({ code: 0, signal: null });

      await own.resume();
      const second = await hosts.start(env);
      expect(second.output().stdout).toMatch(/Resumed 1 pending webhook delivery/);
      const received = await hook.waitFor((r) => r.id === eventId, 60_000);
      expectSigned(received, [endpoint.secret]);
      const [delivery] = await waitForDeliveries(api(second.baseUrl, second.apiKey), { event_id: eventId }, ([d]) => d?.status === 'succeeded');
      const outcomes = delivery!.attempts.map((a) => a.status_code ?? a.error);
      expect(outcomes.at(-1)).toBe(200);
      expect(outcomes.slice(0, -1).every((o) => o === 'connect_failed')).toBe(true);
      expect(outcomes.length).toBeGreaterThanOrEqual(3);
    } finally {
      await own.close();
    }
  }, 240_000);
});
