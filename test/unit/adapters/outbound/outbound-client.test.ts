/**
 * The outbound client against servers on 127.0.0.1 (allowLoopback, as the local host runs it):
 * methods, Range, raw POST bodies, redirects, byte and time bounds, streaming, TLS by name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../../functions/config.js';
import { OutboundRequestFailed } from '../../../../functions/adapters/outbound/errors.js';
import { createOutboundClient, MAX_REDIRECTS } from '../../../../functions/adapters/outbound/outbound-client.js';
import { selfSignedCertificate, startServer, stubResolver, type TestServer } from './support.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const resource = randomBytes(1000);
const bigSize = 6 * 1024 ** 2;
const big = randomBytes(bigSize);
const sockets = new Set<Socket>();
let tricklesClosed = 0;

let server: TestServer;
let base: string;
const resolver = stubResolver({ 'media.example.test': ['127.0.0.1'], 'other.example.test': ['127.0.0.1'] });
const client = createOutboundClient({ resolver, allowLoopback: true });

beforeAll(async () => {
  server = await startServer((request, response, body) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const param = (name: string) => url.searchParams.get(name);
    switch (url.pathname) {
      case '/ok':
        response.writeHead(200, { 'content-type': 'text/plain', 'x-answer': '42' }).end('hello');
        return;
      case '/bytes':
        // Chunked: no Content-Length to refuse early.
        response.writeHead(200);
        response.write(Buffer.alloc(Number(param('n')), 7));
        response.end();
        return;
      case '/declared':
        response.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
        response.write('only the start');
        return;
      case '/range': {
        const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
        if (!match) return void response.end(resource);
        const start = Number(match[1]);
        const end = match[2] ? Number(match[2]) : resource.length - 1;
        response.writeHead(206, { 'content-range': `bytes ${start}-${end}/${resource.length}` }).end(resource.subarray(start, end + 1));
        return;
      }
      case '/big':
        response.writeHead(200, { 'content-length': String(bigSize), 'content-type': 'video/mp4' });
        if (request.method === 'HEAD') return void response.end();
        void pipeline(chunksOf(big), response).catch(() => undefined);
        return;
      case '/hang':
        return; // never answers
      case '/trickle': {
        response.writeHead(200);
        const timer = setInterval(() => response.write('x'), 20);
        response.on('close', () => {
          clearInterval(timer);
          tricklesClosed += 1;
        });
        return;
      }
      case '/stall':
        response.writeHead(200);
        response.write('some bytes, then nothing');
        return;
      case '/short':
        response.writeHead(200, { 'content-length': '100' });
        response.write(Buffer.alloc(50));
        setTimeout(() => response.socket?.destroy(), 20);
        return;
      case '/echo':
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: request.method, length: body.length, sha256: sha256(body), headers: request.headers }));
        return;
      case '/chain': {
        const left = Number(param('n'));
        response.writeHead(302, { location: left > 0 ? `/chain?n=${left - 1}` : '/ok' }).end();
        return;
      }
      case '/to':
        response.writeHead(Number(param('s') ?? 302), { location: param('u') ?? '/ok' }).end('redirect body');
        return;
      default:
        response.writeHead(404).end();
    }
  });
  base = `http://media.example.test:${server.port}`;
});
afterAll(() => server.close());

function chunksOf(bytes: Buffer) {
  // In 64 KiB pieces, as a file would be read.
  return (function* () {
    for (let offset = 0; offset < bytes.length; offset += 65_536) yield bytes.subarray(offset, offset + 65_536);
  })();
}

const echoed = (body: Buffer) => JSON.parse(body.toString()) as { method: string; length: number; sha256: string; headers: Record<string, string> };

describe('requests', () => {
  it('GET: status, headers, body and duration; Host is the hostname, the peer the pinned address', async () => {
    const response = await client.fetch({ url: `${base}/ok?token=secret` });
    expect(response).toMatchObject({ status: 200, truncated: false, redirects: 0, target: `${base}/ok` });
    expect(response.headers).toMatchObject({ 'content-type': 'text/plain', 'x-answer': '42' });
    expect(response.body.toString()).toBe('hello');
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(response.finalUrl.search).toBe('?token=secret');
    expect(server.requests.at(-1)).toMatchObject({ url: '/ok?token=secret', headers: { host: `media.example.test:${server.port}` } });
  });

  it('sends no Accept-Encoding and a User-Agent of its own unless given one', async () => {
    const plain = echoed((await client.fetch({ url: `${base}/echo` })).body).headers;
    expect(plain['accept-encoding']).toBeUndefined();
    expect(plain['user-agent']).toBe('media-scanner-service');
    const custom = echoed((await client.fetch({ url: `${base}/echo`, headers: { 'User-Agent': 'probe/1' } })).body).headers;
    expect(custom['user-agent']).toBe('probe/1');
  });

  it('HEAD: the headers, no body; a large declared length is not a body', async () => {
    const response = await client.fetch({ url: `${base}/big`, method: 'HEAD', maxBytes: 10 });
    expect(response.status).toBe(200);
    expect(response.headers['content-length']).toBe(String(bigSize));
    expect(response.body.length).toBe(0);
  });

  it.each([
    [{ start: 10, end: 19 }, 'bytes=10-19', 10, 19],
    [{ start: 990 }, 'bytes=990-', 990, 999],
  ])('Range GET %j sends %s', async (range, header, start, end) => {
    const response = await client.fetch({ url: `${base}/range`, range });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(response.body.equals(resource.subarray(start, end + 1))).toBe(true);
    expect(server.requests.at(-1)?.headers.range).toBe(header);
  });

  it('refuses a malformed range, a body on GET and headers the client owns', async () => {
    await expect(client.fetch({ url: `${base}/range`, range: { start: 5, end: 4 } })).rejects.toThrow(TypeError);
    await expect(client.fetch({ url: `${base}/echo`, body: new Uint8Array(1) })).rejects.toThrow(TypeError);
    await expect(client.fetch({ url: `${base}/echo`, headers: { Host: 'elsewhere.example' } })).rejects.toThrow(TypeError);
    await expect(client.fetch({ url: `${base}/echo`, headers: { 'x-bad': 'a\r\nb' } })).rejects.toThrow(TypeError);
  });

  it('POST sends the exact raw bytes given, with its headers, and reports status, headers and duration', async () => {
    // A view into a larger buffer, with bytes that are not UTF-8: only the view's bytes are sent.
    const backing = randomBytes(70_000);
    const payload = new Uint8Array(backing.buffer, backing.byteOffset + 3, 65_537);
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc=' };
    const response = await client.fetch({ url: `${base}/echo`, method: 'POST', body: payload, headers });
    const seen = echoed(response.body);
    expect(seen).toMatchObject({ method: 'POST', length: 65_537, sha256: sha256(payload) });
    expect(seen.headers).toMatchObject({ ...headers, 'content-length': '65537' });
    expect(server.requests.at(-1)?.body.equals(payload)).toBe(true);
    expect(response.status).toBe(200);
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('POST without a body sends Content-Length 0', async () => {
    const seen = echoed((await client.fetch({ url: `${base}/echo`, method: 'POST' })).body);
    expect(seen).toMatchObject({ method: 'POST', length: 0, headers: { 'content-length': '0' } });
  });
});

describe('redirects', () => {
  it(`follows up to ${MAX_REDIRECTS}`, async () => {
    const response = await client.fetch({ url: `${base}/chain?n=${MAX_REDIRECTS - 1}` });
    expect(response).toMatchObject({ status: 200, redirects: MAX_REDIRECTS, target: `${base}/ok` });
  });

  it('fails with too_many_redirects past the limit, after exactly limit + 1 requests', async () => {
    const before = server.requests.length;
    await expect(client.fetch({ url: `${base}/chain?n=${MAX_REDIRECTS}` })).rejects.toMatchObject({ reason: 'too_many_redirects' });
    expect(server.requests.length - before).toBe(MAX_REDIRECTS + 1);
  });

  it('manual: a 3xx is the response (webhook delivery)', async () => {
    const before = server.requests.length;
    const response = await client.fetch({ url: `${base}/to?u=%2Fok`, method: 'POST', body: Buffer.from('{}'), redirect: 'manual' });
    expect(response).toMatchObject({ status: 302, redirects: 0, headers: { location: '/ok' } });
    expect(response.body.toString()).toBe('redirect body');
    expect(server.requests.length - before).toBe(1);
  });

  it.each([
    [303, 'GET', 0],
    [302, 'GET', 0],
    [301, 'GET', 0],
    [307, 'POST', 5],
    [308, 'POST', 5],
  ])('%i after a POST continues with %s and %i body bytes', async (status, method, length) => {
    const response = await client.fetch({ url: `${base}/to?s=${status}&u=%2Fecho`, method: 'POST', body: Buffer.from('hello') });
    expect(echoed(response.body)).toMatchObject({ method, length });
  });

  it('drops credentials headers on a redirect to another origin, keeps them on the same origin', async () => {
    const headers = { authorization: 'Bearer t', cookie: 'c=1', 'x-trace': 'kept' };
    const same = echoed((await client.fetch({ url: `${base}/to?u=%2Fecho`, headers })).body).headers;
    expect(same).toMatchObject(headers);
    const elsewhere = encodeURIComponent(`http://other.example.test:${server.port}/echo`);
    const other = echoed((await client.fetch({ url: `${base}/to?u=${elsewhere}`, headers })).body).headers;
    expect(other.authorization).toBeUndefined();
    expect(other.cookie).toBeUndefined();
    expect(other['x-trace']).toBe('kept');
    expect(other.host).toBe(`other.example.test:${server.port}`);
  });
});

describe('byte bounds', () => {
  it('fails with too_large when the body runs past maxBytes', async () => {
    await expect(client.fetch({ url: `${base}/bytes?n=5000`, maxBytes: 4999 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(client.fetch({ url: `${base}/bytes?n=5000`, maxBytes: 5000 })).resolves.toMatchObject({ truncated: false });
  });

  it('fails at once when Content-Length declares too much', async () => {
    const started = Date.now();
    await expect(client.fetch({ url: `${base}/declared`, maxBytes: 1024 ** 3 })).rejects.toMatchObject({ reason: 'too_large' });
    await expect(client.stream({ url: `${base}/declared`, maxBytes: 1024 ** 3 })).rejects.toMatchObject({ reason: 'too_large' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('truncate keeps the first maxBytes and says so', async () => {
    const response = await client.fetch({ url: `${base}/big`, maxBytes: 100, overflow: 'truncate' });
    expect(response).toMatchObject({ status: 200, truncated: true });
    expect(response.body.equals(big.subarray(0, 100))).toBe(true);
    const whole = await client.fetch({ url: `${base}/ok`, maxBytes: 100, overflow: 'truncate' });
    expect(whole).toMatchObject({ truncated: false });
    expect(whole.body.toString()).toBe('hello');
  });

  it('a body cut short of its Content-Length fails, never looks complete', async () => {
    await expect(client.fetch({ url: `${base}/short` })).rejects.toMatchObject({ reason: 'network_error' });
  });
});

describe('streaming', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'outbound-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('streams a large body to a file, byte for byte', async () => {
    const response = await client.stream({ url: `${base}/big`, maxBytes: bigSize });
    expect(response).toMatchObject({ status: 200, headers: { 'content-type': 'video/mp4' } });
    expect(response.headersMs).toBeGreaterThanOrEqual(0);
    const file = join(dir, 'big.mp4');
    await pipeline(response.body, createWriteStream(file));
    expect((await stat(file)).size).toBe(bigSize);
    const hash = createHash('sha256');
    await pipeline(createReadStream(file), hash);
    expect(hash.digest('hex')).toBe(sha256(big));
  });

  it('errors the stream with too_large past maxBytes (no Content-Length to refuse early)', async () => {
    const response = await client.stream({ url: `${base}/bytes?n=300000`, maxBytes: 200_000 });
    await expect(pipeline(response.body, createWriteStream(join(dir, 'partial')))).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('errors the stream with timeout at the total deadline, even while nobody reads', async () => {
    const response = await client.stream({ url: `${base}/trickle`, maxBytes: 1024 ** 2, totalTimeoutMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(pipeline(response.body, createWriteStream(join(dir, 'trickle')))).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('a consumer that stops early closes the connection', async () => {
    const response = await client.stream({ url: `${base}/trickle`, maxBytes: 1024 ** 2 });
    const before = tricklesClosed;
    response.body.destroy();
    await vi.waitFor(() => expect(tricklesClosed).toBe(before + 1));
  });
});

describe('time bounds', () => {
  it('headers: a server that never answers', async () => {
    const error = await client.fetch({ url: `${base}/hang`, headersTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundRequestFailed);
    expect(error).toMatchObject({ reason: 'timeout', message: expect.stringContaining('no response headers within 200 ms') as string });
  });

  it('total: a body that trickles for ever', async () => {
    await expect(client.fetch({ url: `${base}/trickle`, totalTimeoutMs: 300 })).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('idle: a body that stalls', async () => {
    const error = await client.fetch({ url: `${base}/stall`, idleTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'timeout', message: expect.stringContaining('no body bytes for 200 ms') as string });
  });

  it('connect: a TLS handshake that never completes', async () => {
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const error = await client.fetch({ url: `https://media.example.test:${port}/`, connectTimeoutMs: 200 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'timeout', message: expect.stringContaining('no connection within 200 ms') as string });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('an aborted signal fails with aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(client.fetch({ url: `${base}/hang`, signal: controller.signal })).rejects.toMatchObject({ reason: 'aborted' });
    await expect(client.fetch({ url: `${base}/ok`, signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'aborted' });
  });

  it('connect covers DNS: a resolver that never answers', async () => {
    const stuck = createOutboundClient({ resolver: { resolve: () => new Promise(() => undefined) }, allowLoopback: true });
    await expect(stuck.fetch({ url: `${base}/ok`, connectTimeoutMs: 200 })).rejects.toMatchObject({ reason: 'timeout' });
  });

  it.each([{ maxBytes: Number.NaN }, { maxBytes: -1 }, { totalTimeoutMs: 0 }, { idleTimeoutMs: 1.5 }, { headersTimeoutMs: 2 ** 31 }])(
    'refuses the bound %j',
    async (bound) => {
      await expect(client.fetch({ url: `${base}/ok`, ...bound })).rejects.toThrow(TypeError);
    },
  );

  it('a connection refused is connect_failed', async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    await expect(client.fetch({ url: `http://127.0.0.1:${closed.port}/` })).rejects.toMatchObject({ reason: 'connect_failed' });
  });
});

describe('TLS verifies the hostname while the connection is pinned to the checked address', () => {
  const { key, cert } = selfSignedCertificate('media.example.test');
  let tlsServer: TestServer;
  const serverNames: string[] = [];

  beforeAll(async () => {
    tlsServer = await startServer((request, response) => response.end(`secure ${request.headers.host}`), {
      key,
      cert,
      SNICallback: (name, done) => {
        serverNames.push(name);
        done(null);
      },
    });
  });
  afterAll(() => tlsServer.close());

  it('succeeds for the certificate name, sending it as SNI and Host', async () => {
    const trusting = createOutboundClient({ resolver, allowLoopback: true, ca: cert });
    const response = await trusting.fetch({ url: `https://media.example.test:${tlsServer.port}/` });
    expect(response.body.toString()).toBe(`secure media.example.test:${tlsServer.port}`);
    expect(serverNames.at(-1)).toBe('media.example.test');
  });

  it('fails with tls_failed for another name on the same address, and for an untrusted certificate', async () => {
    const trusting = createOutboundClient({ resolver, allowLoopback: true, ca: cert });
    await expect(trusting.fetch({ url: `https://other.example.test:${tlsServer.port}/` })).rejects.toMatchObject({ reason: 'tls_failed' });
    await expect(client.fetch({ url: `https://media.example.test:${tlsServer.port}/` })).rejects.toMatchObject({ reason: 'tls_failed' });
  });

  it('without allowLoopback the same target is refused before any connection', async () => {
    const before = serverNames.length;
    const strict = createOutboundClient({ resolver, ca: cert });
    await expect(strict.fetch({ url: `https://media.example.test:${tlsServer.port}/` })).rejects.toMatchObject({ reason: 'forbidden_address' });
    expect(serverNames.length).toBe(before);
  });
});

describe('LOCAL_ALLOW_LOOPBACK_TARGETS', () => {
  const minimal = { TABLE_NAME: 't', MEDIA_BUCKET: 'b', CURSOR_SECRET: 's'.repeat(32) };

  it('is off by default, on with 1 (on the local host: HOST_KIND=local), and refuses anything else', () => {
    const localHost = { ...minimal, HOST_KIND: 'local' };
    expect(parseConfig(minimal).host.allowLoopbackTargets).toBe(false);
    expect(parseConfig({ ...minimal, LOCAL_ALLOW_LOOPBACK_TARGETS: '0' }).host.allowLoopbackTargets).toBe(false);
    expect(parseConfig({ ...localHost, LOCAL_ALLOW_LOOPBACK_TARGETS: '1' }).host.allowLoopbackTargets).toBe(true);
    expect(() => parseConfig({ ...minimal, LOCAL_ALLOW_LOOPBACK_TARGETS: 'yes' })).toThrow(/LOCAL_ALLOW_LOOPBACK_TARGETS/);
  });
});
