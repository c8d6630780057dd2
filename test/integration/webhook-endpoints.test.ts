/**
 * Webhook endpoints (SPEC Events, DESIGN 9 and 10) over HTTP on the shared local host: the
 * secret shown once, list/get/patch/delete, rotation, test events, the outbound URL rules, the
 * event list, the per-account limit and the per-account event-delivery switch (admin CLI).
 * The shared host runs with LOCAL_ALLOW_LOOPBACK_TARGETS=1: plain http to loopback is allowed
 * there, and nothing else is.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  adminOutput,
  clientFor,
  createAccount,
  expectError,
  isoMillisPattern,
  listAll,
  runAdmin,
  type ApiResponse,
  type Client,
  type List,
  type NewAccount,
} from '../helpers/api.js';

interface WebhookEndpoint {
  object: 'webhook_endpoint';
  endpoint_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}
type WithSecret = WebhookEndpoint & { secret: string };

const endpointKeys = ['object', 'endpoint_id', 'url', 'events', 'description', 'enabled', 'created_at', 'updated_at'].sort();
const endpointIdPattern = /^whe_[0-9a-f]{32}$/;
const secretPattern = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
/** Nothing listens there: these tests create endpoints, they do not receive deliveries. */
const receiverUrl = 'http://127.0.0.1:4/hooks';
const body = { url: receiverUrl, events: ['run.completed', 'upload.ready'] };

let owner: NewAccount;
let client: Client;
let stranger: Client;
/** Only ever sends refused URLs: it must end with no endpoint. */
let refused: Client;

beforeAll(async () => {
  const [a, b, c] = await Promise.all([createAccount(), createAccount(), createAccount()]);
  owner = a;
  client = clientFor(a.apiKey);
  stranger = clientFor(b.apiKey);
  refused = clientFor(c.apiKey);
});

async function create(on: Client = client, extra: Record<string, unknown> = {}): Promise<WithSecret> {
  const response = await on.post<WithSecret>('/v1/webhook-endpoints', { ...body, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const remove = (on: Client, id: string): Promise<ApiResponse<unknown>> => on.send('DELETE', `/v1/webhook-endpoints/${id}`);

describe('creating an endpoint', () => {
  test('answers 201 with the enabled record and a whsec_ secret of 32 random bytes, shown only there', async () => {
    const response = await client.post<WithSecret>('/v1/webhook-endpoints', { ...body, description: 'Production receiver' });
    expect(response.status, response.text).toBe(201);
    const created = response.body;
    expect(Object.keys(created).sort()).toEqual([...endpointKeys, 'secret'].sort());
    expect(created).toMatchObject({ object: 'webhook_endpoint', url: receiverUrl, events: body.events, description: 'Production receiver', enabled: true });
    expect(created.endpoint_id).toMatch(endpointIdPattern);
    expect(created.created_at).toMatch(isoMillisPattern);
    expect(created.updated_at).toBe(created.created_at);
    expect(created.secret).toMatch(secretPattern);
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const one = await client.get<WebhookEndpoint>(`/v1/webhook-endpoints/${created.endpoint_id}`);
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(endpointKeys);
    const { secret: _secret, ...record } = created;
    expect(one.body).toEqual(record);
    const list = await client.get<List<WebhookEndpoint>>('/v1/webhook-endpoints');
    expect(list.status).toBe(200);
    expect(list.body.data.map((e) => e.endpoint_id)).toContain(created.endpoint_id);
    for (const response of [one, list]) {
      expect(response.text).not.toContain(created.secret);
      expect(response.text).not.toMatch(/whsec_|"secrets?"/);
    }
  });

  test('every creation makes a new endpoint and secret: Idempotency-Key is ignored (SPEC)', async () => {
    const headers = { 'idempotency-key': 'same-key-twice' };
    const [first, second] = [
      await client.post<WithSecret>('/v1/webhook-endpoints', body, headers),
      await client.post<WithSecret>('/v1/webhook-endpoints', body, headers),
    ];
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.endpoint_id).not.toBe(second.body.endpoint_id);
    expect(first.body.secret).not.toBe(second.body.secret);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  test.each([
    ['plain http to a private address', 'http://10.0.0.1/hooks', /public addresses only/],
    ['https to a private address', 'https://10.0.0.1/hooks', /public addresses only/],
    ['a private IPv6 address', 'http://[fd00::1]/hooks', /public addresses only/],
    ['an IPv4-mapped loopback address', 'http://[::ffff:127.0.0.1]:4/hooks', /https|public addresses only/],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data', /public addresses only/],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/in', /credentials/],
    ['credentials in a loopback URL', 'http://user:pw@127.0.0.1:4/hooks', /credentials/],
    ['another scheme', 'ftp://127.0.0.1/hooks', /https/],
    ['a bad port', 'http://127.0.0.1:25/hooks', /port/],
    ['a single-label host', 'https://intranet/hooks', /fully qualified/],
    ['no URL at all', 'hooks.example.com/in', /absolute URL/],
  ])('refuses %s: 400 validation_failed on url, nothing created', async (_what, url, reason) => {
    const error = expectError(await refused.post('/v1/webhook-endpoints', { ...body, url }), 400, 'validation_failed', 'url');
    expect(error.message).toMatch(reason);
    // The refusal never repeats credentials.
    expect(error.message).not.toContain('pw@');
    expect((await refused.get<List<WebhookEndpoint>>('/v1/webhook-endpoints')).body.data).toEqual([]);
  });

  test.each([
    ['no events', { events: [] }, 'events'],
    ['an unknown type', { events: ['run.completed', 'run.started'] }, 'events[1]'],
    ['webhook.test, which is not subscribable', { events: ['webhook.test'] }, 'events[0]'],
    ['a duplicate', { events: ['run.failed', 'run.failed'] }, 'events[1]'],
    ['events missing', { events: undefined }, 'events'],
    ['an unknown field', { enabled: false }, 'enabled'],
    ['a secret of its own', { secret: 'whsec_AAAA' }, 'secret'],
    ['a description over 500 characters', { description: 'x'.repeat(501) }, 'description'],
  ])('refuses %s: 400 validation_failed', async (_what, change, param) => {
    expectError(await client.post('/v1/webhook-endpoints', { ...body, ...change }), 400, 'validation_failed', param);
  });

  test('stops at 16 endpoints per account with 409 webhook_endpoint_limit_reached; deleting one makes room', async () => {
    const capped = clientFor((await createAccount()).apiKey);
    const created = [];
    for (let i = 0; i < 16; i++) created.push(await create(capped));
    const error = expectError(await capped.post('/v1/webhook-endpoints', body), 409, 'webhook_endpoint_limit_reached');
    expect(error.message).toContain('16');
    expect((await remove(capped, created[0]!.endpoint_id)).status).toBe(200);
    await create(capped);
  });
});

describe('listing', () => {
  test('pages newest first with signed cursors, never crossing accounts', async () => {
    const lister = clientFor((await createAccount()).apiKey);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create(lister)).endpoint_id);
    const { pages, items } = await listAll<WebhookEndpoint>(lister, '/v1/webhook-endpoints', 2);
    expect(pages).toHaveLength(2);
    expect(items.map((e) => e.endpoint_id)).toEqual([...ids].reverse());
    const cursor = pages[0]!.next_cursor!;
    expectError(await stranger.get(`/v1/webhook-endpoints?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor');
  });
});

describe('changing an endpoint', () => {
  test('PATCH changes only the fields sent, and GET shows the change', async () => {
    const created = await create(client, { description: 'before' });
    const patched = await client.patch<WebhookEndpoint>(`/v1/webhook-endpoints/${created.endpoint_id}`, {
      events: ['analysis.completed', 'analysis.failed'],
      enabled: false,
      description: null,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(Object.keys(patched.body).sort()).toEqual(endpointKeys);
    expect(patched.body).toMatchObject({ url: receiverUrl, events: ['analysis.completed', 'analysis.failed'], enabled: false, description: null });
    expect(patched.body.updated_at > created.updated_at).toBe(true);
    expect(patched.text).not.toContain(created.secret);
    expect((await client.get(`/v1/webhook-endpoints/${created.endpoint_id}`)).body).toEqual(patched.body);

    const moved = await client.patch<WebhookEndpoint>(`/v1/webhook-endpoints/${created.endpoint_id}`, { url: 'http://localhost:4/elsewhere' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ url: 'http://localhost:4/elsewhere', enabled: false });
  });

  test('PATCH checks a new URL like creation does, and refuses empty or unknown changes', async () => {
    const { endpoint_id } = await create();
    const path = `/v1/webhook-endpoints/${endpoint_id}`;
    expectError(await client.patch(path, { url: 'http://10.0.0.1/hooks' }), 400, 'validation_failed', 'url');
    expectError(await client.patch(path, { url: 'https://user:pw@127.0.0.1/hooks' }), 400, 'validation_failed', 'url');
    expectError(await client.patch(path, {}), 400, 'validation_failed');
    expectError(await client.patch(path, { secret: 'whsec_AAAA' }), 400, 'validation_failed', 'secret');
    expectError(await client.patch(path, { events: ['webhook.test'] }), 400, 'validation_failed', 'events[0]');
    expect((await client.get<WebhookEndpoint>(path)).body.url).toBe(receiverUrl);
  });

  test('DELETE answers 200 with a deletion marker; then the endpoint is gone (404) and unlisted', async () => {
    const { endpoint_id } = await create();
    const deleted = await remove(client, endpoint_id);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ object: 'webhook_endpoint', endpoint_id, deleted: true });
    expectError(await client.get(`/v1/webhook-endpoints/${endpoint_id}`), 404, 'not_found');
    expectError(await remove(client, endpoint_id), 404, 'not_found');
    expectError(await client.patch(`/v1/webhook-endpoints/${endpoint_id}`, { enabled: true }), 404, 'not_found');
    const { items } = await listAll<WebhookEndpoint>(client, '/v1/webhook-endpoints', 100);
    expect(items.map((e) => e.endpoint_id)).not.toContain(endpoint_id);
  });

  test('rotate-secret answers the record with a new secret once; reads never show either', async () => {
    const created = await create();
    const path = `/v1/webhook-endpoints/${created.endpoint_id}`;
    const rotated = await client.post<WithSecret>(`${path}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual([...endpointKeys, 'secret'].sort());
    expect(rotated.body.secret).toMatch(secretPattern);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(rotated.body.updated_at > created.updated_at).toBe(true);
    const again = await client.post<WithSecret>(`${path}/rotate-secret`);
    expect(again.body.secret).not.toBe(rotated.body.secret);
    for (const read of [await client.get(path), await client.get('/v1/webhook-endpoints'), await client.patch(path, { enabled: true })]) {
      for (const secret of [created.secret, rotated.body.secret, again.body.secret]) expect(read.text).not.toContain(secret);
    }
  });

  test('test answers 202 naming the webhook.test event it published', async () => {
    const { endpoint_id } = await create();
    const response = await client.post<{ object: string; endpoint_id: string; event_id: string; event_type: string; created_at: string }>(
      `/v1/webhook-endpoints/${endpoint_id}/test`,
    );
    expect(response.status, response.text).toBe(202);
    expect(response.body).toMatchObject({ object: 'webhook_test', endpoint_id, event_type: 'webhook.test' });
    expect(response.body.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(response.body.created_at).toMatch(isoMillisPattern);
  });

  test("another account's endpoint is 404 on every route, and stays as it was", async () => {
    const created = await create();
    const path = `/v1/webhook-endpoints/${created.endpoint_id}`;
    expectError(await stranger.get(path), 404, 'not_found');
    expectError(await stranger.patch(path, { enabled: false }), 404, 'not_found');
    expectError(await remove(stranger, created.endpoint_id), 404, 'not_found');
    expectError(await stranger.post(`${path}/rotate-secret`), 404, 'not_found');
    expectError(await stranger.post(`${path}/test`), 404, 'not_found');
    expect((await stranger.get<List<WebhookEndpoint>>('/v1/webhook-endpoints')).body.data.map((e) => e.endpoint_id)).not.toContain(created.endpoint_id);
    const { secret: _secret, ...record } = created;
    expect((await client.get(path)).body).toEqual(record);
  });
});

describe('event delivery switched off for the account (admin CLI)', () => {
  test('creation and test events answer 503 event_delivery_unavailable; existing endpoints stay manageable; on again, creation works', async () => {
    const account = await createAccount();
    const api = clientFor(account.apiKey);
    const existing = await create(api);
    const toggle = async (flag: '--on' | '--off') =>
      adminOutput<{ account_id: string; event_delivery_enabled: boolean }>(
        await runAdmin(['accounts', 'event-delivery', flag, '--account', account.accountId]),
      );

    expect(await toggle('--off')).toMatchObject({ account_id: account.accountId, event_delivery_enabled: false });
    expect((await api.get<{ event_delivery: { available: boolean } }>('/v1/account')).body.event_delivery).toEqual({ available: false });
    const error = expectError(await api.post('/v1/webhook-endpoints', body), 503, 'event_delivery_unavailable');
    expect(error.message).toMatch(/poll/);
    expectError(await api.post(`/v1/webhook-endpoints/${existing.endpoint_id}/test`), 503, 'event_delivery_unavailable');
    expect((await api.patch(`/v1/webhook-endpoints/${existing.endpoint_id}`, { enabled: false })).status).toBe(200);
    expect((await api.get<List<WebhookEndpoint>>('/v1/webhook-endpoints')).body.data).toHaveLength(1);
    // Other accounts are not affected.
    await create(client);

    expect(await toggle('--on')).toMatchObject({ account_id: account.accountId, event_delivery_enabled: true });
    expect((await api.get<{ event_delivery: { available: boolean } }>('/v1/account')).body.event_delivery).toEqual({ available: true });
    await create(api);
  });

  test('the command needs exactly one of --on and --off, and a known account', async () => {
    for (const args of [[], ['--on', '--off']]) {
      const result = await runAdmin(['accounts', 'event-delivery', ...args, '--account', owner.accountId]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/exactly one of --on and --off/);
    }
    const unknown = await runAdmin(['accounts', 'event-delivery', '--off', '--account', 'acct_00000000000000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such account/);
  });
});
