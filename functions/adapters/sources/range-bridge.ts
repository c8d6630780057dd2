import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { http } from '../../shared/node-http.js';

/** Bytes that can be read by range: a remote source through the outbound client, or a local file. */
export interface RangeSource {
  readonly size: number;
  /** Bytes `start` to `end`, both inclusive. */
  read(start: number, end: number): Promise<Readable>;
}

export const fileRangeSource = (path: string, size: number): RangeSource => ({
  size,
  read: (start, end) => Promise.resolve(createReadStream(path, { start, end })),
});

interface RangeBridge {
  /** `http://127.0.0.1:<port>/<token>`: what ffprobe opens instead of the source. */
  readonly url: string;
  /** The first error a read of the source raised (an ffprobe verdict drawn after one is void). */
  readonly failure: Error | undefined;
  close(): Promise<void>;
}

/**
 * A one-probe HTTP server on loopback that answers GET/HEAD with Range from a RangeSource. ffprobe
 * reads sources through it, never from the source itself: every remote byte then goes through
 * the outbound client's checks (pinned DNS, re-checked redirects, bounds), and a local file is
 * read without opening ffprobe's file protocol. Only one random, unguessable path is served.
 */
export async function openRangeBridge(source: RangeSource): Promise<RangeBridge> {
  const token = randomBytes(24).toString('base64url');
  let failure: Error | undefined;
  const server = http.createServer((request, response) => {
    // ffprobe closing a connection it no longer needs (it seeks by opening another) is routine: the
    // read it cut short then fails, and that failure is no fault of the source.
    let peerClosed = false;
    const closedByPeer = () => (peerClosed = true);
    request.socket.once('end', closedByPeer).once('error', closedByPeer);
    serve(source, token, request, response).catch((error: unknown) => {
      if (!peerClosed && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') failure ??= firstCause(error);
      // Before the headers, a 502 makes ffprobe stop at once ("Server returned 5XX").
      if (response.headersSent) response.destroy();
      else response.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${token}`,
    get failure() {
      return failure;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A read cut short while its stream was being destroyed surfaces as an AggregateError of both. */
function firstCause(error: unknown): Error {
  if (error instanceof AggregateError) return firstCause(error.errors[0]);
  return error instanceof Error ? error : new Error(String(error));
}

async function serve(source: RangeSource, token: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.url !== `/${token}` || (request.method !== 'GET' && request.method !== 'HEAD')) {
    response.writeHead(404).end();
    return;
  }
  const { size } = source;
  const range = parseRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    response.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    'content-length': String(Math.max(0, end - start + 1)),
    ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
  };
  const status = range ? 206 : 200;
  if (request.method === 'HEAD' || end < start) {
    response.writeHead(status, headers).end();
    return;
  }
  const body = await source.read(start, end);
  response.writeHead(status, headers);
  await pipeline(body, response);
}

/** One `bytes=` range (RFC 9110 §14.1.2), as ffmpeg sends them; absent or malformed: the whole body. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
