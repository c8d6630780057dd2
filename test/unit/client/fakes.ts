/**
 * A fake fetch and a fake clock for the client's unit tests: requests are answered by handlers
 * keyed by `METHOD /path`, every request is kept (with its body read), and time only moves when
 * the code under test sleeps.
 */
import type { Clock } from '../../../packages/client/src/index.js';

export interface SeenRequest {
  method: string;
  path: string;
  url: string;
  headers: Headers;
  body: Uint8Array;
}

type Handler = (request: SeenRequest, count: number) => Response | Promise<Response>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers } });

export const envelope = (status: number, code: string, message = code) => json(status, { error: { type: 'x', code, message, request_id: 'req-err' } });

export function fakeFetch(handlers: Record<string, Handler>) {
  const seen: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const key = `${request.method} ${url.host === 'api.test' ? url.pathname : url.href}`;
    const handler = handlers[key];
    const body = new Uint8Array(await request.arrayBuffer());
    const entry = { method: request.method, path: url.pathname, url: request.url, headers: request.headers, body };
    seen.push(entry);
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (!handler) throw new Error(`fake fetch: no handler for ${key}`);
    return handler(entry, count);
  };
  return { fetch, seen };
}

export function fakeClock(random = 0.5): Clock & { sleeps: number[]; time: number } {
  const clock = {
    time: 0,
    sleeps: [] as number[],
    now: () => clock.time,
    sleep: (ms: number) => {
      clock.sleeps.push(ms);
      clock.time += ms;
      return Promise.resolve();
    },
    random: () => random,
  };
  return clock;
}

export const hex = (n: number) => n.toString(16).padStart(32, '0');
