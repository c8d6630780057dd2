import { randomUUID } from 'node:crypto';
import type { Clock } from './clock.js';

export interface RetryOptions {
  /** Attempts in all, the first included. @default 5 */
  maxAttempts?: number;
  /** The first backoff; each next one doubles. @default 500 */
  baseDelayMs?: number;
  /** No single wait is longer (a Retry-After header included). @default 20_000 */
  maxDelayMs?: number;
}

/** SPEC: retry transient failures; 429 is throttling, 503 work that could not be queued (nothing was done). */
const transientStatuses = new Set([429, 503]);

/**
 * POSTs the API does not make idempotent: repeating one after a lost answer could do it twice
 * (a second upload ticket, or a 409 for a cancel that worked), so only a status the server
 * answered (429, 503) retries them. SPEC: reconcile an ambiguous upload by listing uploads.
 */
const notRepeatable = [/^\/v1\/uploads$/, /\/cancel$/];

function repeatableAfterNetworkError(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'PUT') return true;
  return request.headers.has('idempotency-key') && !notRepeatable.some((pattern) => pattern.test(new URL(request.url).pathname));
}

/** Full-jitter exponential backoff, at least what Retry-After asks, never over the cap. */
export function backoffMs(attempt: number, options: Required<RetryOptions>, random: number, retryAfter?: string | null): number {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (random * exponential) / 2;
  const asked = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
  return Math.min(options.maxDelayMs, Math.max(jittered, asked));
}

export const retryDefaults: Required<RetryOptions> = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 20_000 };

/**
 * Runs `send` until it answers something other than 429/503, or a network failure that is safe
 * to repeat stops happening, at most maxAttempts times. `send` builds its request afresh each
 * time (a streamed body cannot be sent twice). The last answer or error is the caller's.
 */
export async function withRetries(
  send: () => Promise<Response>,
  repeatable: boolean,
  clock: Clock,
  options: RetryOptions = {},
  transient: (status: number) => boolean = (status) => transientStatuses.has(status),
): Promise<Response> {
  const settings = { ...retryDefaults, ...options };
  for (let attempt = 1; ; attempt += 1) {
    const last = attempt >= settings.maxAttempts;
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      if (last || !repeatable || (error instanceof Error && error.name === 'AbortError')) throw error;
      await clock.sleep(backoffMs(attempt, settings, clock.random()));
      continue;
    }
    if (last || !transient(response.status)) return response;
    await response.body?.cancel();
    await clock.sleep(backoffMs(attempt, settings, clock.random(), response.headers.get('retry-after')));
  }
}

/**
 * A fetch for openapi-fetch that retries transient failures, and gives every POST and PATCH an
 * Idempotency-Key (a UUID) unless the caller set one: the retries of one call then share a key,
 * so the server does the work once however many attempts reach it.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  clock: Clock,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  return (input) => {
    let request = input;
    if ((request.method === 'POST' || request.method === 'PATCH') && !request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('idempotency-key', randomUUID());
      request = new Request(request, { headers });
    }
    return withRetries(() => fetchImpl(request.clone()), repeatableAfterNetworkError(request), clock, options);
  };
}
