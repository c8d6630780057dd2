/**
 * A loopback webhook receiver for the integration tests and the benchmark: one HTTP server with
 * any number of hooks (paths), each with the secrets it verifies with and a script of answers.
 * Every request is verified with the Standard Webhooks reference library, as an integrator's
 * receiver would (`new Webhook(secret).verify(rawBody, headers)`), once per known secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

export interface Received {
  /** `webhook-id` */
  id: string;
  timestamp: string;
  /** Each `v1,<base64>` of `webhook-signature`. */
  signatures: string[];
  contentType: string | undefined;
  rawBody: string;
  event: ReceivedEvent;
  /** The hook's secrets (at the time) under which the reference library accepted the request. */
  verifiedWith: string[];
  /** Date.now() when it arrived. */
  receivedAt: number;
  /** What the hook answered. */
  answered: number | 'reset';
}

/** An answer: a status (with an optional body and headers), or `reset` to cut the connection. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'reset';

export interface Hook {
  url: string;
  /** The secrets to verify with; push the endpoint's secret after creating it. */
  secrets: string[];
  received: Received[];
  /** The answer to the n-th request (0-based); 200 by default. */
  answer: (n: number, request: Received) => Answer;
  /** The first request matching, waiting up to `timeoutMs`. */
  waitFor(match: (received: Received) => boolean, timeoutMs?: number): Promise<Received>;
  /** Waits until `count` requests match. */
  waitForCount(match: (received: Received) => boolean, count: number, timeoutMs?: number): Promise<Received[]>;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  base: string;
  hook(path: string): Hook;
  /** Every request that reached no hook (it must stay empty: nothing is ever followed there). */
  strays: { path: string }[];
  /** Stops listening (the receiver is down) ... */
  pause(): Promise<void>;
  /** ... and listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

function until<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      const found = probe();
      if (found !== undefined) return resolve(found);
      if (Date.now() > deadline) return reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

function verify(rawBody: string, headers: IncomingMessage['headers'], secrets: readonly string[]): string[] {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') plain[name] = value;
  return secrets.filter((secret) => {
    try {
      new Webhook(secret).verify(rawBody, plain);
      return true;
    } catch {
      return false;
    }
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const hooks = new Map<string, Hook>();
  const strays: { path: string }[] = [];
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hook = hooks.get(req.url ?? '');
      if (!hook) {
        strays.push({ path: req.url ?? '' });
        res.writeHead(404).end();
        return;
      }
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let event: ReceivedEvent;
      try {
        event = JSON.parse(rawBody) as ReceivedEvent;
      } catch {
        event = { id: '', type: '', created_at: '', data: { object: {} } };
      }
      const received: Received = {
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signatures: String(req.headers['webhook-signature'] ?? '')
          .split(' ')
          .filter(Boolean),
        contentType: req.headers['content-type'],
        rawBody,
        event,
        verifiedWith: verify(rawBody, req.headers, hook.secrets),
        receivedAt: Date.now(),
        answered: 200,
      };
      const answer = hook.answer(hook.received.length, received);
      received.answered = answer === 'reset' ? 'reset' : answer.status;
      hook.received.push(received);
      if (answer === 'reset') req.socket.destroy();
      else res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' }).end(answer.body ?? `answered ${answer.status}`);
    });
  };

  let server: Server = createServer(handle);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  const port = await listen(0);
  const base = `http://127.0.0.1:${port}`;

  return {
    base,
    strays,
    hook(path) {
      const received: Received[] = [];
      const hook: Hook = {
        url: `${base}${path}`,
        secrets: [],
        received,
        answer: () => ({ status: 200 }),
        waitFor: (match, timeoutMs = 30_000) => until(() => received.find(match), timeoutMs, `a delivery to ${path}`),
        waitForCount: (match, count, timeoutMs = 30_000) =>
          until(
            () => {
              const found = received.filter(match);
              return found.length >= count ? found : undefined;
            },
            timeoutMs,
            `${count} deliveries to ${path}`,
          ),
      };
      hooks.set(path, hook);
      return hook;
    },
    pause: stop,
    async resume() {
      server = createServer(handle);
      await listen(port);
    },
    close: stop,
  };
}
