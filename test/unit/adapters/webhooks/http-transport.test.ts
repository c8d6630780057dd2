import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient } from '../../../../functions/adapters/outbound/outbound-client.js';
import { httpWebhookTransport } from '../../../../functions/adapters/webhooks/http-transport.js';
import { standardWebhooksSigner } from '../../../../functions/adapters/webhooks/signer.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('é'.repeat(600));
      else if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end('moved');
      else if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(500).end('down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const loopback = httpWebhookTransport(createOutboundClient({ allowLoopback: true }));
const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_1', 'webhook-timestamp': '1767225600', 'webhook-signature': 'v1,x' };

describe('httpWebhookTransport', () => {
  it('POSTs the exact body with the given headers and keeps the first 1 KiB of the answer', async () => {
    const body = '{"id":"evt_1","type":"run.completed","data":{"object":{"b":1,"a":"ü"}}}';
    const attempt = await loopback.post(`${base}/ok`, body, headers);
    expect(attempt.statusCode).toBe(200);
    expect(Buffer.byteLength(attempt.responseBody ?? '')).toBeLessThanOrEqual(1024 + 2);
    expect(attempt.responseBody?.startsWith('éé')).toBe(true);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    const last = received.at(-1)!;
    expect(last.body).toBe(body);
    expect(last.headers).toMatchObject({ ...headers, 'content-length': String(Buffer.byteLength(body)) });
    expect(await loopback.post(`${base}/empty`, body, headers)).toEqual({ statusCode: 204, durationMs: expect.any(Number) as number });
  });

  it('never follows a redirect: the 3xx is the answer (and the forbidden Location is never reached)', async () => {
    const count = received.length;
    const attempt = await loopback.post(`${base}/redirect`, '{}', headers);
    expect(attempt).toMatchObject({ statusCode: 302, responseBody: 'moved' });
    expect(received.length).toBe(count + 1);
  });

  it('turns a refused target or a failed exchange into an attempt with an error code, never an exception', async () => {
    const strict = httpWebhookTransport(createOutboundClient({ allowLoopback: false }));
    expect(await strict.post(`${base}/ok`, '{}', headers)).toMatchObject({ error: 'target_refused' });
    expect(await strict.post('https://10.1.2.3/hook', '{}', headers)).toMatchObject({ error: 'target_refused' });
    expect(await strict.post('https://user:pw@example.com/hook', '{}', headers)).toMatchObject({ error: 'target_refused' });
    expect(await strict.post('not a url', '{}', headers)).toMatchObject({ error: 'target_refused' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await loopback.post(`http://127.0.0.1:${port}/hook`, '{}', headers)).toMatchObject({ error: 'connect_failed' });
  });
});

describe('standardWebhooksSigner', () => {
  const current = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
  const previous = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;
  const payload = '{"id":"evt_1","type":"webhook.test"}';
  const at = new Date();
  const signed = (signature: string) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  });

  it('signs with each secret, space-separated, and the reference library verifies under either', () => {
    const signature = standardWebhooksSigner.sign('evt_1', at, payload, [current, previous]);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(current).verify(payload, signed(signature))).toEqual(JSON.parse(payload));
    expect(new Webhook(previous).verify(payload, signed(signature))).toEqual(JSON.parse(payload));
    expect(() => new Webhook(`whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`).verify(payload, signed(signature))).toThrow();
    expect(() => new Webhook(current).verify(`${payload} `, signed(signature))).toThrow();
  });
});
