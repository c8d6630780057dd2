import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { ApiError, notFound } from '../errors.js';
import { idPrefixes } from '../ids.js';
import type { AccountStore } from '../accounts/ports.js';
import type { Page, PageRequest } from '../pages.js';
import type { ServiceEvent } from '../events/model.js';
import { eventDeliveryEnabled } from './availability.js';
import { liveSecrets } from './endpoints.js';
import type { DeliveryAttempt, DeliveryStatus, WebhookDeliveryRecord, WebhookEndpointRecord } from './model.js';
import type { DeliveryFilter, DeliveryScheduler, WebhookDeliveryStore, WebhookEndpointStore, WebhookSigner, WebhookTransport } from './ports.js';
import { nextAttemptDelayMs } from './schedule.js';

/**
 * The webhook delivery engine (DESIGN 8, 10), the same on both hosts: an event fans out to one
 * delivery per subscribed endpoint, each attempted at once and then on the retry schedule until a
 * 2xx answers or the schedule is spent. Deliveries live in the table; the scheduler only wakes
 * the sender, so a lost wake-up delays a delivery and never loses it (the local host sweeps the
 * due index, and a wake-up on AWS is re-sent until the attempt it triggers is recorded).
 */
export interface DeliveryDeps {
  deliveries: WebhookDeliveryStore;
  endpoints: Pick<WebhookEndpointStore, 'get' | 'listAll'>;
  accounts: Pick<AccountStore, 'getAccount'>;
  transport: WebhookTransport;
  signer: WebhookSigner;
  scheduler: DeliveryScheduler;
  /** The deployment's switch (EVENT_DELIVERY_ENABLED); each account has its own too. */
  deploymentEnabled: boolean;
  /** Compresses the retry schedule (WEBHOOK_RETRY_SCALE, tests only); 1 on deployments. */
  retryScale: number;
  clock: () => Date;
}

/** Why an attempt sent nothing, as its `error` (the transport adds its own: target_refused, timeout, ...). */
const attemptErrors = {
  endpointDeleted: 'endpoint_deleted',
  endpointDisabled: 'endpoint_disabled',
  deliveryOff: 'event_delivery_unavailable',
  noSecret: 'no_signing_secret',
} as const;

/**
 * A delivery keeps every attempt in its record: the 8 scheduled ones and manual retries up to
 * this many in all, which keeps the record well inside DynamoDB's 400 KB item limit.
 */
export const MAX_DELIVERY_ATTEMPTS = 100;

/** The delivery log keeps a delivery this long after its event (the retry schedule spans about 28 hours). */
export const DELIVERY_LOG_RETENTION_DAYS = 30;

/** A wake-up this early still attempts (timers and queues are not exact); an earlier one re-arms for the due time. */
const EARLY_WAKE_TOLERANCE_MS = 1_000;

/**
 * The one id of an event's delivery to an endpoint: a UUIDv7 whose time is the event's and whose
 * random bits are sha256(event id, endpoint id). A repeated fan-out computes the same id, so one
 * conditional write creates the delivery once; and ids sort by event time, so the delivery log
 * reads newest first like every other list.
 */
export function deliveryIdFor(event: Pick<ServiceEvent, 'id' | 'created_at'>, endpointId: string): string {
  const random = createHash('sha256').update(`${event.id}\n${endpointId}`).digest().subarray(0, 16);
  const msecs = Date.parse(event.created_at);
  return `${idPrefixes.delivery}_${uuidv7({ random, msecs: Number.isFinite(msecs) ? msecs : 0 }).replaceAll('-', '')}`;
}

/** The endpoint a `webhook.test` event is for (POST /v1/webhook-endpoints/{id}/test puts it in `data.object`). */
function testEndpointOf(event: ServiceEvent): string | undefined {
  const object = event.data.object as { endpoint_id?: unknown } | null;
  return typeof object?.endpoint_id === 'string' ? object.endpoint_id : undefined;
}

async function deliveryOn(deps: Pick<DeliveryDeps, 'accounts' | 'deploymentEnabled'>, accountId: string): Promise<boolean> {
  if (!deps.deploymentEnabled) return false;
  const account = await deps.accounts.getAccount(accountId);
  return account !== undefined && eventDeliveryEnabled(deps.deploymentEnabled, account);
}

/** The endpoints an event goes to: `webhook.test` to the one it names, others to every enabled subscriber. */
async function targetsOf(deps: DeliveryDeps, accountId: string, event: ServiceEvent): Promise<WebhookEndpointRecord[]> {
  if (event.type === 'webhook.test') {
    const endpointId = testEndpointOf(event);
    const endpoint = endpointId === undefined ? undefined : await deps.endpoints.get(accountId, endpointId);
    // Even a disabled one: its delivery log then says why nothing was sent.
    return endpoint ? [endpoint] : [];
  }
  const endpoints = await deps.endpoints.listAll(accountId);
  return endpoints.filter((endpoint) => endpoint.enabled && (endpoint.events as readonly string[]).includes(event.type));
}

/** A delivery of an event, as fan-out found or made it, and its endpoint. */
interface EventDelivery {
  delivery: WebhookDeliveryRecord;
  endpoint: WebhookEndpointRecord;
  /** Made by this call (false: an earlier fan-out of the same event made it). */
  created: boolean;
}

/**
 * Creates the deliveries of one event, once each however often the event arrives; from here on
 * the event is safe for webhooks (the deliveries are in the table). Nothing is created while
 * delivery is off.
 */
export async function createDeliveries(deps: DeliveryDeps, accountId: string, event: ServiceEvent): Promise<EventDelivery[]> {
  const [on, targets] = await Promise.all([deliveryOn(deps, accountId), targetsOf(deps, accountId, event)]);
  if (!on || !targets.length) return [];
  const payload = JSON.stringify(event);
  const now = deps.clock().toISOString();
  return Promise.all(
    targets.map(async (endpoint) => {
      const { created, delivery } = await deps.deliveries.createOnce({
        deliveryId: deliveryIdFor(event, endpoint.endpointId),
        accountId,
        endpointId: endpoint.endpointId,
        eventId: event.id,
        eventType: event.type,
        payload,
        status: 'pending',
        attempts: [],
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      });
      return { delivery, endpoint, created };
    }),
  );
}

/**
 * Creates the deliveries of one event and attempts them. A repeated fan-out attempts what an
 * earlier one left pending and due, so an event whose first fan-out died half-way is still
 * delivered.
 */
export async function fanOut(deps: DeliveryDeps, accountId: string, event: ServiceEvent): Promise<WebhookDeliveryRecord[]> {
  const made = await createDeliveries(deps, accountId, event);
  return Promise.all(
    made.map(async ({ delivery, endpoint, created }) => {
      // A new delivery is attempted with what was just read; one made before is woken like any other.
      if (created) return attemptNow(deps, delivery, { on: true, endpoint });
      return delivery.status === 'pending' ? ((await attemptDelivery(deps, accountId, delivery.deliveryId)) ?? delivery) : delivery;
    }),
  );
}

/** What an attempt needs to know besides the delivery: whether delivery is on, and the endpoint now (undefined: deleted). */
interface AttemptContext {
  on: boolean;
  endpoint: WebhookEndpointRecord | undefined;
}

/** One POST of the stored payload, or why none was sent (which ends the delivery). */
async function send(
  deps: DeliveryDeps,
  delivery: WebhookDeliveryRecord,
  { on, endpoint }: AttemptContext,
  now: Date,
): Promise<{ result: Omit<DeliveryAttempt, 'at'>; final: boolean }> {
  const refused = (error: string) => ({ result: { error, durationMs: 0 }, final: true });
  if (!on) return refused(attemptErrors.deliveryOff);
  if (!endpoint) return refused(attemptErrors.endpointDeleted);
  if (!endpoint.enabled) return refused(attemptErrors.endpointDisabled);
  // The current secret and, for a day after a rotation, the previous one: a receiver verifies with either.
  const secrets = liveSecrets(endpoint.secrets, now).map((s) => s.secret);
  if (!secrets.length) return refused(attemptErrors.noSecret);
  // Standard Webhooks: the id is the event's (receivers dedupe by it); the timestamp is this attempt's.
  const headers = {
    'content-type': 'application/json',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': deps.signer.sign(delivery.eventId, now, delivery.payload, secrets),
  };
  return { result: await deps.transport.post(endpoint.url, delivery.payload, headers), final: false };
}

const isSuccessfulAttempt = (attempt: Pick<DeliveryAttempt, 'statusCode'>): boolean =>
  attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300;

/**
 * One wake-up of a delivery: attempts it if it is pending and due, records the attempt and moves
 * it on (succeeded, the next due time, or failed). A wake-up for a delivery that is not due yet
 * re-arms the scheduler for the due time; one for a terminal delivery does nothing. Returns the
 * delivery as it now is (undefined: no such delivery).
 */
export async function attemptDelivery(deps: DeliveryDeps, accountId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
  const delivery = await deps.deliveries.get(accountId, deliveryId);
  if (!delivery || delivery.status !== 'pending' || delivery.nextAttemptAt === null) return delivery;
  const due = new Date(delivery.nextAttemptAt);
  if (due.getTime() - deps.clock().getTime() > EARLY_WAKE_TOLERANCE_MS) {
    await deps.scheduler.schedule(accountId, deliveryId, due);
    return delivery;
  }
  const [on, endpoint] = await Promise.all([deliveryOn(deps, accountId), deps.endpoints.get(accountId, delivery.endpointId)]);
  return attemptNow(deps, delivery, { on, endpoint });
}

/** Sends a pending delivery now, records the attempt, and arms the next wake-up if there is one. */
async function attemptNow(deps: DeliveryDeps, delivery: WebhookDeliveryRecord, context: AttemptContext): Promise<WebhookDeliveryRecord> {
  const { accountId, deliveryId } = delivery;
  const started = deps.clock();
  const { result, final } = await send(deps, delivery, context, started);
  const attempt: DeliveryAttempt = { at: started.toISOString(), ...result };
  const ended = deps.clock();
  const next = nextState(deps, delivery, attempt, final, ended);
  const recorded = await deps.deliveries.recordAttempt(delivery, attempt, next, ended.toISOString());
  // Another sender recorded an attempt first (a duplicate wake-up): its outcome stands.
  if (!recorded) return (await deps.deliveries.get(accountId, deliveryId)) ?? delivery;
  if (next.nextAttemptAt !== null) await deps.scheduler.schedule(accountId, deliveryId, new Date(next.nextAttemptAt));
  return {
    ...delivery,
    ...next,
    attempts: [...delivery.attempts, attempt],
    manualRetry: false,
    updatedAt: ended.toISOString(),
  };
}

function nextState(
  deps: Pick<DeliveryDeps, 'retryScale'>,
  delivery: WebhookDeliveryRecord,
  attempt: DeliveryAttempt,
  final: boolean,
  now: Date,
): { status: DeliveryStatus; nextAttemptAt: string | null } {
  if (isSuccessfulAttempt(attempt)) return { status: 'succeeded', nextAttemptAt: null };
  // A manual retry is one attempt: the schedule was spent before it.
  if (final || delivery.manualRetry) return { status: 'failed', nextAttemptAt: null };
  const delay = nextAttemptDelayMs(delivery.attempts.length + 1, deps.retryScale);
  return delay === null ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay).toISOString() };
}

/**
 * POST /v1/webhook-deliveries/{id}/retry: a failed delivery is attempted once more, now (through
 * the scheduler, so the request does not wait for the receiver). 409 delivery_not_retryable
 * for a pending or succeeded delivery, or one that has used every attempt it may keep.
 */
export async function retryDelivery(
  deps: Pick<DeliveryDeps, 'deliveries' | 'accounts' | 'scheduler' | 'deploymentEnabled' | 'clock'>,
  accountId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  const delivery = await deps.deliveries.get(accountId, deliveryId);
  if (!delivery) throw notFound('webhook delivery');
  if (delivery.status !== 'failed') {
    throw new ApiError('delivery_not_retryable', `This delivery is ${delivery.status}; only a failed delivery can be retried.`);
  }
  if (delivery.attempts.length >= MAX_DELIVERY_ATTEMPTS) {
    throw new ApiError('delivery_not_retryable', `This delivery has made ${delivery.attempts.length} attempts, as many as a delivery keeps.`);
  }
  if (!(await deliveryOn(deps, accountId))) {
    throw new ApiError('event_delivery_unavailable', 'Event delivery is off for this account; poll for status instead.');
  }
  const now = deps.clock();
  if (!(await deps.deliveries.reopen(delivery, now.toISOString()))) {
    throw new ApiError('delivery_not_retryable', 'This delivery changed meanwhile (another retry?); read it again.');
  }
  await deps.scheduler.schedule(accountId, deliveryId, now);
  return { ...delivery, status: 'pending', nextAttemptAt: now.toISOString(), manualRetry: true, updatedAt: now.toISOString() };
}

/** GET /v1/webhook-deliveries: newest first, filtered. */
export const listDeliveries = (
  deps: Pick<DeliveryDeps, 'deliveries'>,
  accountId: string,
  filter: DeliveryFilter,
  page: PageRequest,
): Promise<Page<WebhookDeliveryRecord>> => deps.deliveries.list(accountId, filter, page);
