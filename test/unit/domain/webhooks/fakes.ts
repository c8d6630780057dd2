/**
 * In-memory stand-ins for the webhook delivery engine's ports, with the table store's semantics
 * (one delivery per event and endpoint; attempts recorded only at the count they were read with).
 */
import { vi } from 'vitest';
import type { Account } from '../../../../functions/domain/accounts/model.js';
import type { ServiceEvent } from '../../../../functions/domain/events/model.js';
import type { DeliveryDeps } from '../../../../functions/domain/webhooks/deliveries.js';
import type { DeliveryAttempt, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../../../functions/domain/webhooks/model.js';
import type { WebhookDeliveryStore, WebhookTransport } from '../../../../functions/domain/webhooks/ports.js';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

export const clone = <T>(value: T): T => structuredClone(value);

export class FakeDeliveryStore implements WebhookDeliveryStore {
  readonly byId = new Map<string, WebhookDeliveryRecord>();
  private readonly guard = new Map<string, string>();

  createOnce(delivery: WebhookDeliveryRecord) {
    const key = `${delivery.accountId}/${delivery.eventId}/${delivery.endpointId}`;
    const existing = this.guard.get(key);
    if (existing) return Promise.resolve({ created: false, delivery: clone(this.byId.get(existing)!) });
    this.guard.set(key, delivery.deliveryId);
    this.byId.set(delivery.deliveryId, clone(delivery));
    return Promise.resolve({ created: true, delivery: clone(delivery) });
  }

  get(accountId: string, deliveryId: string) {
    const found = this.byId.get(deliveryId);
    return Promise.resolve(found && found.accountId === accountId ? clone(found) : undefined);
  }

  recordAttempt(delivery: WebhookDeliveryRecord, attempt: DeliveryAttempt, next: Pick<WebhookDeliveryRecord, 'status' | 'nextAttemptAt'>, now: string) {
    const stored = this.byId.get(delivery.deliveryId);
    if (!stored || stored.status !== 'pending' || stored.attempts.length !== delivery.attempts.length) return Promise.resolve(false);
    stored.attempts.push(clone(attempt));
    Object.assign(stored, next, { updatedAt: now });
    delete stored.manualRetry;
    return Promise.resolve(true);
  }

  reopen(delivery: WebhookDeliveryRecord, at: string) {
    const stored = this.byId.get(delivery.deliveryId);
    if (!stored || stored.status !== 'failed') return Promise.resolve(false);
    Object.assign(stored, { status: 'pending', nextAttemptAt: at, updatedAt: at, manualRetry: true });
    return Promise.resolve(true);
  }

  list(accountId: string) {
    return Promise.resolve({
      items: [...this.byId.values()]
        .filter((d) => d.accountId === accountId)
        .reverse()
        .map(clone),
      nextCursor: null,
    });
  }

  listDue(at: string, limit: number) {
    const due = [...this.byId.values()].filter((d) => d.status === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= at);
    return Promise.resolve(
      due
        .sort((a, b) => a.nextAttemptAt!.localeCompare(b.nextAttemptAt!))
        .slice(0, limit)
        .map(clone),
    );
  }

  all(): WebhookDeliveryRecord[] {
    return [...this.byId.values()].map(clone);
  }
}

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const OLD_SECRET = 'whsec_OLDQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export function endpoint(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    endpointId: 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a01',
    accountId: ACCOUNT_ID,
    url: 'https://hooks.example.com/a',
    events: ['run.completed', 'upload.ready'],
    description: null,
    enabled: true,
    secrets: [{ secret: SECRET }],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function event(overrides: Partial<ServiceEvent> = {}): ServiceEvent {
  return {
    id: 'evt_5f0c2a9e7b3d41c8a6e2f9b0d4c7a1e3',
    type: 'run.completed',
    created_at: '2026-01-02T00:00:00.000Z',
    data: { object: { object: 'run', run_id: 'run_0190a0b0c0d07e0f8a9b0c1d2e3f4a02' } },
    ...overrides,
  };
}

/** A transport answering from a script of status codes (or errors), one per call; the last repeats. */
export function scriptedTransport(script: (number | string)[]) {
  const calls: { url: string; body: string; headers: Record<string, string> }[] = [];
  let index = 0;
  const transport: WebhookTransport = {
    post: (url, body, headers) => {
      calls.push({ url, body, headers });
      const answer = script[Math.min(index++, script.length - 1)]!;
      return Promise.resolve(
        typeof answer === 'number' ? { statusCode: answer, durationMs: 12, responseBody: `answer ${answer}` } : { error: answer, durationMs: 3 },
      );
    },
  };
  return { transport, calls };
}

/** A controllable clock starting at `start`. */
export function manualClock(start = '2026-01-02T00:00:01.000Z') {
  let now = Date.parse(start);
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms), set: (iso: string) => (now = Date.parse(iso)) };
}

export interface Harness {
  deps: DeliveryDeps;
  deliveries: FakeDeliveryStore;
  endpoints: WebhookEndpointRecord[];
  calls: { url: string; body: string; headers: Record<string, string> }[];
  scheduled: { accountId: string; deliveryId: string; at: Date }[];
  account: Account;
  time: ReturnType<typeof manualClock>;
  /** The signer: `v1,<last 4 of the secret>:<id>:<ms>:<body length>` per secret. */
  sign: ReturnType<typeof vi.fn<(id: string, at: Date, payload: string, secrets: readonly string[]) => string>>;
}

export function harness(
  options: {
    endpoints?: WebhookEndpointRecord[];
    script?: (number | string)[];
    deploymentEnabled?: boolean;
    account?: Partial<Account>;
    retryScale?: number;
  } = {},
): Harness {
  const deliveries = new FakeDeliveryStore();
  const endpoints = options.endpoints ?? [endpoint()];
  const { transport, calls } = scriptedTransport(options.script ?? [200]);
  const scheduled: Harness['scheduled'] = [];
  const account = testAccount(options.account);
  const time = manualClock();
  const sign = vi.fn((id: string, at: Date, payload: string, secrets: readonly string[]) =>
    secrets.map((s) => `v1,${s.slice(-4)}:${id}:${at.getTime()}:${payload.length}`).join(' '),
  );
  const deps: DeliveryDeps = {
    deliveries,
    endpoints: {
      get: (accountId, endpointId) => Promise.resolve(clone(endpoints.find((e) => e.accountId === accountId && e.endpointId === endpointId))),
      listAll: (accountId) => Promise.resolve(clone(endpoints.filter((e) => e.accountId === accountId))),
    },
    accounts: { getAccount: (accountId) => Promise.resolve(accountId === account.accountId ? clone(account) : undefined) },
    transport,
    signer: { sign },
    scheduler: {
      schedule: (accountId, deliveryId, at) => {
        scheduled.push({ accountId, deliveryId, at });
        return Promise.resolve();
      },
    },
    deploymentEnabled: options.deploymentEnabled ?? true,
    retryScale: options.retryScale ?? 1,
    clock: time.clock,
  };
  return { deps, deliveries, endpoints, calls, scheduled, account, time, sign };
}
