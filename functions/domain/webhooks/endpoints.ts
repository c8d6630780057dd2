/**
 * Webhook endpoints (SPEC Events, DESIGN 8-10): where an account's events are delivered, and
 * the secrets deliveries are signed with. A secret is shown twice at most: in the answer that
 * created it (creation, rotation); the record keeps it for signing and no response shows it again.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Account } from '../accounts/model.js';
import type { EventPublisher } from '../events/ports.js';
import type { Page, PageRequest } from '../pages.js';
import type { ServiceEvent } from '../events/model.js';
import { eventDeliveryEnabled } from './availability.js';
import type { SigningSecret, SubscribableEventType, WebhookEndpointRecord } from './model.js';
import type { WebhookEndpointStore, WebhookUrlCheck } from './ports.js';

/** Endpoints one account may have: each event fans out to all of them. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
/** How long a rotated-out secret keeps signing deliveries, beside the new one. */
const ROTATED_SECRET_TTL_MS = 24 * 60 * 60 * 1000;
/** The current secret and at most four rotated-out ones: every delivery carries one signature per secret. */
export const MAX_SIGNING_SECRETS = 5;
/** Random bytes of a secret (Standard Webhooks: 24 to 64). */
const SECRET_BYTES = 32;
/** Attempts of a change that lost a race with another change of the same endpoint. */
const MAX_CHANGE_ATTEMPTS = 5;

/** POST /v1/webhook-endpoints as validated at the edge; the URL's outbound rules are checked here. */
interface WebhookEndpointCreate {
  url: string;
  events: SubscribableEventType[];
  description?: string | undefined;
}

/** A PATCH: any of the fields; `description: null` clears it. */
interface WebhookEndpointPatch {
  url?: string | undefined;
  events?: SubscribableEventType[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

export interface WebhookEndpointDeps {
  endpoints: WebhookEndpointStore;
  checkUrl: WebhookUrlCheck;
  /** The deployment's switch (EVENT_DELIVERY_ENABLED); each account has its own as well. */
  deploymentEventDelivery: boolean;
  events: EventPublisher;
  /** The endpoint as GET returns it: the `data.object` of a `webhook.test` event. */
  present: (endpoint: WebhookEndpointRecord) => unknown;
}

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks form. */
export const newSigningSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

/** The secrets that still sign at `now`: the current one and rotated-out ones until they expire. */
export const liveSecrets = (secrets: readonly SigningSecret[], now: Date): SigningSecret[] =>
  secrets.filter((secret) => secret.expiresAt === undefined || Date.parse(secret.expiresAt) > now.getTime());

/**
 * A change's updatedAt, later than the version it replaces even within one millisecond: it is
 * what a concurrent change is conditioned on.
 */
const changedAt = (previous: string, now: Date): string => new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();

function assertEventDelivery(deps: Pick<WebhookEndpointDeps, 'deploymentEventDelivery'>, account: Account): void {
  if (!eventDeliveryEnabled(deps.deploymentEventDelivery, account)) {
    throw new ApiError(
      'event_delivery_unavailable',
      deps.deploymentEventDelivery
        ? 'Event delivery is off for this account; poll the status of your work instead.'
        : 'Event delivery is not available on this deployment; poll the status of your work instead.',
    );
  }
}

/** The URL to store (normalized), or 400 validation_failed naming `url`. */
async function allowedUrl(deps: Pick<WebhookEndpointDeps, 'checkUrl'>, url: string): Promise<string> {
  const verdict = await deps.checkUrl(url);
  if (!verdict.allowed) throw new ApiError('validation_failed', `url: ${verdict.reason}.`, 'url');
  return verdict.url;
}

export async function createWebhookEndpoint(
  deps: WebhookEndpointDeps,
  account: Account,
  input: WebhookEndpointCreate,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  assertEventDelivery(deps, account);
  const url = await allowedUrl(deps, input.url);
  const secret = newSigningSecret();
  const at = now.toISOString();
  const endpoint: WebhookEndpointRecord = {
    endpointId: newId('webhookEndpoint'),
    accountId: account.accountId,
    url,
    events: [...input.events],
    description: input.description ?? null,
    enabled: true,
    secrets: [{ secret }],
    createdAt: at,
    updatedAt: at,
  };
  if (!(await deps.endpoints.create(endpoint, MAX_WEBHOOK_ENDPOINTS))) {
    throw new ApiError(
      'webhook_endpoint_limit_reached',
      `An account may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one (DELETE /v1/webhook-endpoints/{endpoint_id}) or subscribe an existing one to more events.`,
    );
  }
  return { endpoint, secret };
}

export async function getWebhookEndpoint(deps: Pick<WebhookEndpointDeps, 'endpoints'>, accountId: string, endpointId: string): Promise<WebhookEndpointRecord> {
  const endpoint = await deps.endpoints.get(accountId, endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

export const listWebhookEndpoints = (
  deps: Pick<WebhookEndpointDeps, 'endpoints'>,
  accountId: string,
  page: PageRequest,
): Promise<Page<WebhookEndpointRecord>> => deps.endpoints.list(accountId, page);

/**
 * Reads the endpoint, applies `change` and writes it back only if nobody changed it meanwhile;
 * the loser of a race re-reads and applies its change on top. Expired secrets are pruned here,
 * at every write.
 */
async function changeEndpoint(
  deps: Pick<WebhookEndpointDeps, 'endpoints'>,
  accountId: string,
  endpointId: string,
  now: Date,
  change: (current: WebhookEndpointRecord) => Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled' | 'secrets'>>,
): Promise<WebhookEndpointRecord> {
  for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
    const current = await getWebhookEndpoint(deps, accountId, endpointId);
    const next: WebhookEndpointRecord = {
      ...current,
      secrets: liveSecrets(current.secrets, now),
      ...change(current),
      updatedAt: changedAt(current.updatedAt, now),
    };
    if (await deps.endpoints.replace(next, current.updatedAt)) return next;
  }
  throw new ApiError('rate_limited', 'This webhook endpoint is being changed concurrently; retry shortly.');
}

export async function updateWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, 'endpoints' | 'checkUrl'>,
  accountId: string,
  endpointId: string,
  patch: WebhookEndpointPatch,
  now = new Date(),
): Promise<WebhookEndpointRecord> {
  // An unknown endpoint is 404 before its new URL is looked up.
  await getWebhookEndpoint(deps, accountId, endpointId);
  const url = patch.url === undefined ? undefined : await allowedUrl(deps, patch.url);
  return changeEndpoint(deps, accountId, endpointId, now, () => ({
    ...(url !== undefined ? { url } : {}),
    ...(patch.events !== undefined ? { events: [...patch.events] } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
  }));
}

/**
 * A new current secret, shown once. The previous one keeps signing for ROTATED_SECRET_TTL_MS,
 * so a receiver can switch over without missing a delivery; the oldest are dropped beyond
 * MAX_SIGNING_SECRETS.
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookEndpointDeps, 'endpoints'>,
  accountId: string,
  endpointId: string,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const secret = newSigningSecret();
  const expiresAt = new Date(now.getTime() + ROTATED_SECRET_TTL_MS).toISOString();
  const endpoint = await changeEndpoint(deps, accountId, endpointId, now, (current) => ({
    secrets: [
      { secret },
      ...liveSecrets(current.secrets, now).map((previous) => ({ secret: previous.secret, expiresAt: previous.expiresAt ?? expiresAt })),
    ].slice(0, MAX_SIGNING_SECRETS),
  }));
  return { endpoint, secret };
}

export async function deleteWebhookEndpoint(deps: Pick<WebhookEndpointDeps, 'endpoints'>, accountId: string, endpointId: string): Promise<void> {
  if (!(await deps.endpoints.delete(accountId, endpointId))) throw notFound('webhook endpoint');
}

/**
 * Publishes a `webhook.test` event through the normal path (the host's event publisher); the
 * delivery engine sends it to this endpoint only, whatever it subscribes to.
 */
export async function sendTestEvent(
  deps: Pick<WebhookEndpointDeps, 'endpoints' | 'events' | 'present' | 'deploymentEventDelivery'>,
  account: Account,
  endpointId: string,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpointRecord; event: ServiceEvent }> {
  const endpoint = await getWebhookEndpoint(deps, account.accountId, endpointId);
  // While delivery is off nothing would be sent: say so rather than accept a test that never arrives.
  assertEventDelivery(deps, account);
  const event: ServiceEvent = { id: newId('event'), type: 'webhook.test', created_at: now.toISOString(), data: { object: deps.present(endpoint) } };
  await deps.events.publish(account.accountId, event);
  return { endpoint, event };
}
