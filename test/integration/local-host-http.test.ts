/**
 * What one client may hold on the local host (functions/local/server.ts), probed with raw sockets
 * as a hostile or broken client would: a body that trickles or stops is answered 408 within the
 * bound (LOCAL_REQUEST_TIMEOUT_MS, 2 s here), slow headers too; oversized headers, URLs and header counts 431; a
 * connection beyond the per-address cap (LOCAL_MAX_CONNECTIONS_PER_CLIENT, 8 here) 429; and a 413
 * reaches a client that keeps sending. Every answer is in the error envelope. Bounds asserted are
 * generous: the machine may be busy.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { api, expectError, type ApiResponse } from '../helpers/api.js';
import { hostsOnOwnData, type HostProcess } from '../helpers/host-process.js';
import { MAX_HEADER_LINES } from '../../functions/local/server.js';

const TIMEOUT_MS = 2_000;
const CAP = 8;
const own = hostsOnOwnData('mss-http-');
let host: HostProcess;
let port = 0;

beforeAll(async () => {
  host = await own.start({ LOCAL_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), LOCAL_MAX_CONNECTIONS_PER_CLIENT: String(CAP) });
  port = Number(new URL(host.baseUrl).port);
});

afterAll(() => own.cleanUp());

interface Exchange {
  /** The answer as the api helpers parse one (status, headers, JSON body, text). */
  response: ApiResponse<unknown>;
  /** ms from the start until the answer was complete, and until the connection closed. */
  answeredAfter: number;
  closedAfter: number;
}

/**
 * Everything the server sends on one raw connection, read while `talk` writes whatever it likes.
 * keepSending: the client does not stop writing when the server closes its side (allowHalfOpen).
 */
function exchange(talk: (socket: Socket) => void, options: { keepSending?: boolean } = {}): Promise<Exchange> {
  const maxMs = 30_000;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: options.keepSending ?? false });
    let received = Buffer.alloc(0);
    let answeredAfter = -1;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end within ${maxMs} ms; received: ${received.toString('latin1').slice(0, 300)}`));
    }, maxMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (answeredAfter < 0 && parse(received)) answeredAfter = Date.now() - started;
    });
    socket.on('error', () => undefined); // writes may meet a closed connection; what was read counts
    socket.on('close', () => {
      clearTimeout(timer);
      const response = parse(received);
      if (!response) reject(new Error(`no complete answer: ${received.toString('latin1').slice(0, 300)}`));
      else resolve({ response, answeredAfter, closedAfter: Date.now() - started });
    });
    socket.once('connect', () => talk(socket));
  });
}

/** A complete HTTP/1.1 response with a content-length, or undefined. */
function parse(bytes: Buffer): ApiResponse<unknown> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
  const length = Number(headers.get('content-length') ?? -1);
  if (length < 0 || bytes.length < end + 4 + length) return undefined;
  const text = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // not JSON: expectError says so
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}

const head = (length: number | 'chunked', path = '/v1/scanners') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

describe('slow requests', () => {
  test('a body trickling one byte every 250 ms is answered 408 within the bound, and closed', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const result = await exchange((socket) => {
      socket.write(`${head(1_000)}{`);
      trickle = setInterval(() => socket.write('a', () => undefined), 250);
    }).finally(() => clearInterval(trickle));
    expectError(result.response, 408, 'request_timeout');
    expect(result.response.headers.get('connection')).toBe('close');
    expect(result.answeredAfter).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(result.answeredAfter).toBeLessThan(TIMEOUT_MS + 8_000);
    expect(result.closedAfter).toBeLessThan(TIMEOUT_MS + 20_000);
  });

  test('a declared 5 MB body that stops after 1 KB is answered 408 within the bound', async () => {
    const result = await exchange((socket) => socket.write(`${head(5 * 1024 * 1024)}{"name":"${'x'.repeat(1024)}`));
    expectError(result.response, 408, 'request_timeout');
    expect(result.answeredAfter).toBeLessThan(TIMEOUT_MS + 8_000);
  });

  test('a declared 20 MB body that stops after 1 KB is answered 413 at once, and closed', async () => {
    const result = await exchange((socket) => socket.write(`${head(20 * 1024 * 1024)}${'x'.repeat(1024)}`));
    expectError(result.response, 413, 'payload_too_large');
    expect(result.answeredAfter).toBeLessThan(TIMEOUT_MS);
    expect(result.closedAfter).toBeLessThan(20_000);
  });

  test('headers sent slowly are answered 408 in the envelope', async () => {
    const result = await exchange((socket) => socket.write('GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    expectError(result.response, 408, 'request_timeout');
    expect(result.answeredAfter).toBeLessThan(TIMEOUT_MS + 8_000);
  });

  test('a client that goes away mid-body is logged as one info line, without a stack trace', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`${head(1_000, '/v1/scanners?aborting=1')}{"name":`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const line = /^local host: POST \/v1\/scanners\?aborting=1: the client closed the connection before its body arrived$/m;
    for (let i = 0; i < 100 && !line.test(host.output().stdout); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(host.output().stdout).toMatch(line);
    expect(host.output().stderr).not.toMatch(/aborted|request failed/);
  });
});

describe('oversized request heads', () => {
  test('a header over 16 KiB is answered 431 in the envelope', async () => {
    const result = await exchange((socket) => socket.write(`GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`));
    expectError(result.response, 431, 'request_header_fields_too_large');
  });

  test('a URL over 16 KiB is answered 431 in the envelope', async () => {
    const result = await exchange((socket) => socket.write(`GET /v1/scanners?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    expectError(result.response, 431, 'request_header_fields_too_large');
  });

  test(`hundreds of header lines are answered 431 in the envelope, as an oversized head is; ${MAX_HEADER_LINES} are served`, async () => {
    // Small lines (about 5 KiB in all): the count refuses them, not the size.
    const lines = (count: number) => Array.from({ length: count }, (_, i) => `X-Pad-${i}: ${i}\r\n`).join('');
    const many = await exchange((socket) =>
      socket.write(`GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines(300)}Authorization: Bearer ${host.apiKey}\r\n\r\n`),
    );
    expectError(many.response, 431, 'request_header_fields_too_large');
    expect((many.response.body as { error: { message: string } }).error.message).toContain(`${MAX_HEADER_LINES} header lines`);
    // At the limit (Host and Authorization included), the request is served: nothing was dropped on the way.
    const atLimit = await exchange((socket) =>
      socket.write(
        `GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines(MAX_HEADER_LINES - 3)}Authorization: Bearer ${host.apiKey}\r\n\r\n`,
      ),
    );
    expect(atLimit.response.status, atLimit.response.text).toBe(200);
  });

  test('a request that is not HTTP is answered 400 in the envelope', async () => {
    const result = await exchange((socket) => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    expectError(result.response, 400, 'validation_failed');
  });
});

describe('connections per client address', () => {
  test(`a connection beyond ${CAP} open ones from one address is answered 429 in the envelope; below the cap requests are served`, async () => {
    const holders = await Promise.all(
      Array.from(
        { length: CAP },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );
    try {
      const over = await exchange((socket) => socket.write('GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      expectError(over.response, 429, 'rate_limited');
    } finally {
      for (const socket of holders) socket.destroy();
    }
    // Once they are closed (the server sees it a moment later), requests are served again.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await api(host.baseUrl, host.apiKey).get('/v1/account')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});

describe('a 413 reaches a client that keeps sending', () => {
  /** Writes `total` bytes of body as fast as the socket takes them (chunked: in 64 KiB chunks), then ends its side. */
  const pour = (socket: Socket, total: number, chunked: boolean) => {
    socket.write(head(chunked ? 'chunked' : total));
    const piece = Buffer.alloc(64 * 1024, 'a');
    const frame = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
    let sent = 0;
    const more = () => {
      while (sent < total && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(frame, () => undefined)) return void socket.once('drain', more);
      }
      if (!socket.destroyed) socket.end(chunked ? '0\r\n\r\n' : '');
    };
    more();
  };

  test.each([
    ['a declared 12 MB body', 12, false],
    ['a chunked body that passes 10 MB', 16, true],
    ['a chunked body of 100 MB, beyond what the host drains', 100, true],
  ] as const)('%s, 20 times over', async (_, megabytes, chunked) => {
    for (let i = 0; i < 20; i++) {
      const result = await exchange((socket) => pour(socket, megabytes * 1024 * 1024, chunked), { keepSending: true });
      expectError(result.response, 413, 'payload_too_large');
    }
  });
});
