import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../functions/domain/errors.js';
import { idPattern } from '../../../../functions/domain/ids.js';
import type { Page, PageRequest } from '../../../../functions/domain/pages.js';
import type { ServiceEvent } from '../../../../functions/domain/events/model.js';
import { eventDeliveryEnabled } from '../../../../functions/domain/webhooks/availability.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  liveSecrets,
  MAX_SIGNING_SECRETS,
  MAX_WEBHOOK_ENDPOINTS,
  newSigningSecret,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhookEndpoint,
  type WebhookEndpointDeps,
} from '../../../../functions/domain/webhooks/endpoints.js';
import type { WebhookEndpointRecord } from '../../../../functions/domain/webhooks/model.js';
import type { WebhookEndpointStore, WebhookUrlCheck } from '../../../../functions/domain/webhooks/ports.js';
import { presentWebhookEndpoint } from '../../../../functions/resources/webhook-endpoints/presenter.js';
import { ACCOUNT_ID, OTHER_ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const HOUR_MS = 3_600_000;
const later = (ms: number) => new Date(NOW.getTime() + ms);

/** An in-memory store with the table store's semantics (per-account limit, conditional replace). */
function memoryStore() {
  const records = new Map<string, WebhookEndpointRecord>();
  const key = (accountId: string, endpointId: string) => `${accountId}/${endpointId}`;
  const ofAccount = (accountId: string) => [...records.values()].filter((r) => r.accountId === accountId);
  const store = {
    records,
    create: vi.fn((endpoint: WebhookEndpointRecord, max?: number) => {
      if (max !== undefined && ofAccount(endpoint.accountId).length >= max) return Promise.resolve(false);
      records.set(key(endpoint.accountId, endpoint.endpointId), structuredClone(endpoint));
      return Promise.resolve(true);
    }),
    get: vi.fn((accountId: string, endpointId: string) => Promise.resolve(structuredClone(records.get(key(accountId, endpointId))))),
    list: vi.fn(
      (accountId: string, page: PageRequest): Promise<Page<WebhookEndpointRecord>> =>
        Promise.resolve({ items: ofAccount(accountId).reverse().slice(0, page.limit), nextCursor: null }),
    ),
    listAll: vi.fn((accountId: string) => Promise.resolve(ofAccount(accountId))),
    replace: vi.fn((endpoint: WebhookEndpointRecord, readUpdatedAt?: string) => {
      const current = records.get(key(endpoint.accountId, endpoint.endpointId));
      if (!current || (readUpdatedAt !== undefined && current.updatedAt !== readUpdatedAt)) return Promise.resolve(false);
      records.set(key(endpoint.accountId, endpoint.endpointId), structuredClone(endpoint));
      return Promise.resolve(true);
    }),
    delete: vi.fn((accountId: string, endpointId: string) => Promise.resolve(records.delete(key(accountId, endpointId)))),
  } satisfies WebhookEndpointStore & { records: unknown };
  return store;
}

/** Public https hosts are allowed; anything containing "private" or not https is refused. */
const checkUrl: WebhookUrlCheck = (url) =>
  Promise.resolve(
    url.startsWith('https://') && !url.includes('private')
      ? { allowed: true, url: new URL(url).href }
      : { allowed: false, reason: 'the host must resolve to public addresses only' },
  );

function deps(overrides: Partial<WebhookEndpointDeps> = {}) {
  const published: { accountId: string; event: ServiceEvent }[] = [];
  const store = memoryStore();
  const built = {
    endpoints: store,
    checkUrl: vi.fn(checkUrl),
    deploymentEventDelivery: true,
    events: { publish: vi.fn((accountId: string, event: ServiceEvent) => Promise.resolve(void published.push({ accountId, event }))) },
    present: presentWebhookEndpoint,
    ...overrides,
  };
  return { deps: built, store, published };
}

const account = testAccount();
const input = { url: 'https://hooks.example.com/in', events: ['run.completed' as const, 'upload.ready' as const] };

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('eventDeliveryEnabled', () => {
  it('is on only while both the deployment and the account have it on', () => {
    expect(eventDeliveryEnabled(true, testAccount())).toBe(true);
    expect(eventDeliveryEnabled(true, testAccount({ eventDeliveryDisabled: false }))).toBe(true);
    expect(eventDeliveryEnabled(true, testAccount({ eventDeliveryDisabled: true }))).toBe(false);
    expect(eventDeliveryEnabled(false, testAccount())).toBe(false);
  });
});

describe('signing secrets', () => {
  it('are whsec_ + base64 of 32 random bytes, different every time', () => {
    const secrets = new Set(Array.from({ length: 20 }, newSigningSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
  });

  it('stop signing once expired', () => {
    const secrets = [{ secret: 'a' }, { secret: 'b', expiresAt: later(HOUR_MS).toISOString() }, { secret: 'c', expiresAt: NOW.toISOString() }];
    expect(liveSecrets(secrets, NOW).map((s) => s.secret)).toEqual(['a', 'b']);
    expect(liveSecrets(secrets, later(2 * HOUR_MS)).map((s) => s.secret)).toEqual(['a']);
  });
});

describe('createWebhookEndpoint', () => {
  it('stores an enabled endpoint with one current secret and returns that secret', async () => {
    const { deps: d, store } = deps();
    const { endpoint, secret } = await createWebhookEndpoint(d, account, { ...input, description: 'prod' }, NOW);
    expect(endpoint).toEqual({
      endpointId: expect.stringMatching(idPattern('webhookEndpoint')) as string,
      accountId: ACCOUNT_ID,
      url: 'https://hooks.example.com/in',
      events: ['run.completed', 'upload.ready'],
      description: 'prod',
      enabled: true,
      secrets: [{ secret }],
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    expect(store.create).toHaveBeenCalledWith(endpoint, MAX_WEBHOOK_ENDPOINTS);
    expect(d.checkUrl).toHaveBeenCalledWith('https://hooks.example.com/in');
  });

  it('stores the URL as the check normalized it, and no description as null', async () => {
    const { deps: d } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, { ...input, url: 'https://Hooks.Example.com' }, NOW);
    expect(endpoint.url).toBe('https://hooks.example.com/');
    expect(endpoint.description).toBeNull();
  });

  it('refuses a URL the outbound rules refuse: 400 validation_failed on url, nothing stored', async () => {
    const { deps: d, store } = deps();
    const error = await apiError(createWebhookEndpoint(d, account, { ...input, url: 'https://private.example.com/' }, NOW));
    expect(error).toMatchObject({ code: 'validation_failed', status: 400, param: 'url' });
    expect(error.message).toBe('url: the host must resolve to public addresses only.');
    expect(store.create).not.toHaveBeenCalled();
  });

  it('answers 503 event_delivery_unavailable while delivery is off for the deployment or the account, before any lookup', async () => {
    for (const [deployment, acct] of [
      [false, account],
      [true, testAccount({ eventDeliveryDisabled: true })],
    ] as const) {
      const { deps: d, store } = deps({ deploymentEventDelivery: deployment });
      const error = await apiError(createWebhookEndpoint(d, acct, input, NOW));
      expect(error).toMatchObject({ code: 'event_delivery_unavailable', status: 503 });
      expect(error.message).toContain(deployment ? 'this account' : 'this deployment');
      expect(d.checkUrl).not.toHaveBeenCalled();
      expect(store.create).not.toHaveBeenCalled();
    }
  });

  it('stops at the per-account limit with 409 webhook_endpoint_limit_reached; other accounts are not counted', async () => {
    const { deps: d } = deps();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await createWebhookEndpoint(d, account, input, NOW);
    const error = await apiError(createWebhookEndpoint(d, account, input, NOW));
    expect(error).toMatchObject({ code: 'webhook_endpoint_limit_reached', status: 409 });
    expect(error.message).toContain(String(MAX_WEBHOOK_ENDPOINTS));
    await expect(createWebhookEndpoint(d, testAccount({ accountId: OTHER_ACCOUNT_ID }), input, NOW)).resolves.toBeDefined();
  });
});

describe('reading and deleting', () => {
  it('is account-scoped: another account reads and deletes nothing (404)', async () => {
    const { deps: d } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    await expect(getWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId)).resolves.toEqual(endpoint);
    expect(await apiError(getWebhookEndpoint(d, OTHER_ACCOUNT_ID, endpoint.endpointId))).toMatchObject({ code: 'not_found' });
    expect(await apiError(deleteWebhookEndpoint(d, OTHER_ACCOUNT_ID, endpoint.endpointId))).toMatchObject({ code: 'not_found' });
    await deleteWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId);
    expect(await apiError(getWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId))).toMatchObject({ code: 'not_found' });
    expect(await apiError(deleteWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId))).toMatchObject({ code: 'not_found' });
  });
});

describe('updateWebhookEndpoint', () => {
  it('changes only the fields sent; null clears the description; updatedAt moves', async () => {
    const { deps: d } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, { ...input, description: 'prod' }, NOW);
    const changed = await updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: false, description: null }, later(1000));
    expect(changed).toEqual({ ...endpoint, enabled: false, description: null, updatedAt: later(1000).toISOString() });
    const again = await updateWebhookEndpoint(
      d,
      ACCOUNT_ID,
      endpoint.endpointId,
      { events: ['scanner_batch.completed'], url: 'https://other.example.com/x' },
      later(2000),
    );
    expect(again).toMatchObject({ events: ['scanner_batch.completed'], url: 'https://other.example.com/x', enabled: false, secrets: endpoint.secrets });
  });

  it("checks a new URL like a new endpoint's, and only then", async () => {
    const { deps: d, store } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    vi.mocked(d.checkUrl).mockClear();
    await updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: false }, later(1));
    expect(d.checkUrl).not.toHaveBeenCalled();
    const error = await apiError(updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { url: 'http://hooks.example.com/' }, later(2)));
    expect(error).toMatchObject({ code: 'validation_failed', param: 'url' });
    expect(store.records.get(`${ACCOUNT_ID}/${endpoint.endpointId}`)?.url).toBe(input.url);
  });

  it('answers 404 for an unknown endpoint before looking its URL up', async () => {
    const { deps: d } = deps();
    expect(await apiError(updateWebhookEndpoint(d, ACCOUNT_ID, 'whe_missing', { url: 'https://x.example.com/' }, NOW))).toMatchObject({ code: 'not_found' });
    expect(d.checkUrl).not.toHaveBeenCalled();
  });

  it('prunes expired secrets at every write', async () => {
    const { deps: d, store } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    await rotateWebhookSecret(d, ACCOUNT_ID, endpoint.endpointId, NOW);
    const stored = () => store.records.get(`${ACCOUNT_ID}/${endpoint.endpointId}`);
    expect(stored()?.secrets).toHaveLength(2);
    await updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: true }, later(25 * HOUR_MS));
    expect(stored()?.secrets).toHaveLength(1);
    expect(stored()?.secrets[0]?.expiresAt).toBeUndefined();
  });

  it('a change that lost a race re-reads and applies itself on top: a PATCH never writes back a rotated-out secret list', async () => {
    const { deps: d, store } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    // A rotation lands between the PATCH's read and its write.
    let rotated: string | undefined;
    const replace = store.replace.getMockImplementation()!;
    store.replace.mockImplementationOnce(async (next, read) => {
      rotated = (await rotateWebhookSecret({ endpoints: { ...store, replace } }, ACCOUNT_ID, endpoint.endpointId, NOW)).secret;
      return replace(next, read);
    });
    const changed = await updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: false }, NOW);
    expect(changed.enabled).toBe(false);
    expect(changed.secrets.map((s) => s.secret)).toEqual([rotated, endpoint.secrets[0]?.secret]);
    expect(changed.updatedAt > endpoint.updatedAt).toBe(true);
  });

  it('gives up with 429 rate_limited after losing five races', async () => {
    const { deps: d, store } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    store.replace.mockResolvedValue(false);
    expect(await apiError(updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: false }, NOW))).toMatchObject({ code: 'rate_limited' });
    expect(store.replace).toHaveBeenCalledTimes(5);
  });

  it('answers 404 when the endpoint is deleted during the change', async () => {
    const { deps: d, store } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    store.replace.mockImplementationOnce(async () => {
      await store.delete(ACCOUNT_ID, endpoint.endpointId);
      return false;
    });
    expect(await apiError(updateWebhookEndpoint(d, ACCOUNT_ID, endpoint.endpointId, { enabled: false }, NOW))).toMatchObject({ code: 'not_found' });
  });
});

describe('rotateWebhookSecret', () => {
  it('makes a new current secret and keeps the previous one signing for 24 hours', async () => {
    const { deps: d } = deps();
    const { endpoint, secret: first } = await createWebhookEndpoint(d, account, input, NOW);
    const { endpoint: rotated, secret } = await rotateWebhookSecret(d, ACCOUNT_ID, endpoint.endpointId, later(HOUR_MS));
    expect(secret).not.toBe(first);
    expect(rotated.secrets).toEqual([{ secret }, { secret: first, expiresAt: later(25 * HOUR_MS).toISOString() }]);
    expect(rotated.updatedAt).toBe(later(HOUR_MS).toISOString());
  });

  it("keeps each rotated-out secret's own expiry, and at most five secrets, newest first", async () => {
    const { deps: d } = deps();
    const { endpoint, secret: first } = await createWebhookEndpoint(d, account, input, NOW);
    const second = (await rotateWebhookSecret(d, ACCOUNT_ID, endpoint.endpointId, later(1000))).secret;
    const third = await rotateWebhookSecret(d, ACCOUNT_ID, endpoint.endpointId, later(2000));
    expect(third.endpoint.secrets).toEqual([
      { secret: third.secret },
      { secret: second, expiresAt: later(2000 + 24 * HOUR_MS).toISOString() },
      { secret: first, expiresAt: later(1000 + 24 * HOUR_MS).toISOString() },
    ]);
    let last = third;
    for (let i = 3; i < 10; i++) last = await rotateWebhookSecret(d, ACCOUNT_ID, endpoint.endpointId, later(i * 1000));
    expect(last.endpoint.secrets).toHaveLength(MAX_SIGNING_SECRETS);
    expect(last.endpoint.secrets[0]).toEqual({ secret: last.secret });
  });

  it("is 404 for another account's endpoint", async () => {
    const { deps: d } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    expect(await apiError(rotateWebhookSecret(d, OTHER_ACCOUNT_ID, endpoint.endpointId, NOW))).toMatchObject({ code: 'not_found' });
  });
});

describe('sendTestEvent', () => {
  it('publishes a webhook.test event carrying the endpoint as GET shows it, never a secret', async () => {
    const { deps: d, published } = deps();
    const { endpoint, secret } = await createWebhookEndpoint(d, account, input, NOW);
    const { event } = await sendTestEvent(d, account, endpoint.endpointId, later(5));
    expect(event).toEqual({
      id: expect.stringMatching(idPattern('event')) as string,
      type: 'webhook.test',
      created_at: later(5).toISOString(),
      data: { object: presentWebhookEndpoint(endpoint) },
    });
    expect(published).toEqual([{ accountId: ACCOUNT_ID, event }]);
    expect(JSON.stringify(event)).not.toContain(secret);
  });

  it('is 404 for an unknown endpoint and 503 while delivery is off; nothing is published', async () => {
    const { deps: d, published } = deps();
    const { endpoint } = await createWebhookEndpoint(d, account, input, NOW);
    expect(await apiError(sendTestEvent(d, account, 'whe_missing', NOW))).toMatchObject({ code: 'not_found' });
    expect(await apiError(sendTestEvent(d, testAccount({ eventDeliveryDisabled: true }), endpoint.endpointId, NOW))).toMatchObject({
      code: 'event_delivery_unavailable',
    });
    expect(published).toEqual([]);
  });
});
