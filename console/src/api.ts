/**
 * The console's only way to the server: same-origin fetch with the session cookie, the
 * `X-CSRF-Token` header (the `msc_csrf` cookie, contract "CSRF") on every state change, and the
 * API's error envelope turned into an ApiError the pages show as it is. The `/v1` routes are the
 * API's own, served at `/console/api/v1/...` and typed by the typed client's `paths`; a 401 from
 * any route means the session is gone, and the app shows the signed-out screen.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../packages/client/src/schema.js';

export type Schemas = components['schemas'];
export type Account = Schemas['Account'];
export type Upload = Schemas['Upload'];
export type Scanner = Schemas['Scanner'];
export type Run = Schemas['Run'];
export type Observation = Schemas['Observation'];
export type Analysis = Schemas['Analysis'];
export type AnalysisProgress = Schemas['AnalysisProgress'];
export type Moment = Schemas['Moment'];
export type Render = Schemas['Render'];
export type RenderPresets = Schemas['RenderPresets'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type ScannerBatch = Schemas['ScannerBatch'];
export type ScannerBatchSummary = Schemas['ScannerBatchSummary'];
/** The JSON body of a `/v1` POST route. */
export type PostBody<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
export type Profile = NonNullable<Scanner['profile']>;
export const profiles = ['conversation', 'gameplay'] as const satisfies readonly Profile[];
/** A profile chosen in a form, or undefined for none. */
export const profileOf = (value: string | undefined): Profile | undefined =>
  (profiles as readonly string[]).includes(value ?? '') ? (value as Profile) : undefined;

/** Console-only routes (contract "Console-only routes"). */
export interface Session {
  account_id: string;
  plan: string;
  email?: string;
  host: 'aws' | 'local';
}
export interface ApiKey {
  key_id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
export interface LedgerEntry {
  entry_id: string;
  credits: number;
  reason: string;
  created_at: string;
  [field: string]: unknown;
}
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
export interface SignedMedia {
  url: string;
  expires_at: string;
  content_type: string;
}

export const apiBase = '/console/api';

/** A refused or failed request, with what the API's error envelope says. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

const signedOutListeners = new Set<() => void>();
/** Called when any request answers 401: the session expired, was signed out elsewhere, or never was. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export function csrfToken(): string {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('msc_csrf='));
  return cookie ? decodeURIComponent(cookie.slice('msc_csrf='.length)) : '';
}

const safeMethods = new Set(['GET', 'HEAD']);
const csrf: Middleware = {
  onRequest({ request }) {
    if (!safeMethods.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken());
    return request;
  },
};

async function errorOf(response: Response): Promise<ApiError> {
  if (response.status === 401) for (const listener of signedOutListeners) listener();
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  const envelope = (body as { error?: { code?: string; message?: string; param?: string; request_id?: string } } | null)?.error;
  if (envelope?.message) return new ApiError(response.status, envelope.code ?? 'error', envelope.message, envelope.param, envelope.request_id);
  return new ApiError(response.status, 'http_error', `The server answered ${response.status} ${response.statusText}.`);
}

/** The typed `/v1` routes, e.g. `v1.GET('/v1/uploads/{upload_id}', { params: { path: { upload_id } } })`; pass the result to `ok`. */
export const v1 = createClient<paths>({ baseUrl: `${location.origin}${apiBase}`, credentials: 'same-origin' });
v1.use(csrf);

/** The data of a typed call, or its ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (!response.ok || data === undefined) throw await errorOf(response);
  return data;
}

/** A console-only route (untyped by openapi.json: the shapes above). */
export async function request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (!safeMethods.has(method)) headers['x-csrf-token'] = csrfToken();
  const response = await fetch(`${apiBase}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** Every page of a cursor-paginated list (a run's observations: the timeline needs them all). */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.data);
    cursor = next.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

/**
 * PUT one body to a signed target with XHR, which (unlike fetch) reports upload progress.
 * Headers the browser sets itself (Content-Length, Host) are left to it.
 */
export function putWithProgress(url: string, body: Blob, headers: Record<string, string>, onProgress: (sentBytes: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) if (!/^(content-length|host)$/i.test(name)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new ApiError(xhr.status, 'upload_put_failed', `The storage refused the bytes: ${xhr.status} ${xhr.statusText}.`));
    xhr.onerror = () => reject(new ApiError(0, 'upload_put_failed', 'The bytes could not be sent to the storage (network or CORS).'));
    xhr.send(body);
  });
}
