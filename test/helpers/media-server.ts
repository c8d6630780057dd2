/**
 * A loopback HTTP server that serves files the way media hosts do (GET and HEAD, byte ranges,
 * Content-Length), for one-off analyses of "trusted host" sources on a local host started with
 * LOCAL_ALLOW_LOOPBACK_TARGETS=1. Each file is served at an unguessable path; requests are counted.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface MediaServer {
  /** `http://127.0.0.1:<port>/<token>/<name>` serving `path`. */
  /** `length: false`: no Content-Length (chunked transfer) and no ranges, as a live or generated stream. */
  add(path: string, name?: string, options?: { ranges?: boolean; delayMs?: number; length?: boolean }): string;
  /** Requests received per URL path. */
  hits(url: string): number;
  close(): Promise<void>;
  origin: string;
}

interface Served {
  path: string;
  ranges: boolean;
  delayMs: number;
  length: boolean;
}

export async function startMediaServer(): Promise<MediaServer> {
  const files = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
    const served = files.get(pathname);
    if (!served || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404).end();
      return;
    }
    void (async () => {
      if (served.delayMs) await new Promise((resolve) => setTimeout(resolve, served.delayMs));
      const { size } = await stat(served.path);
      const range = served.ranges ? /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '') : null;
      const start = range ? Number(range[1]) : 0;
      const end = range && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      if (range && start >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      res.writeHead(range ? 206 : 200, {
        'content-type': 'video/mp4',
        ...(served.length ? { 'content-length': String(end - start + 1) } : {}),
        ...(served.ranges ? { 'accept-ranges': 'bytes' } : {}),
        ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(served.path, { start, end }).pipe(res);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    add(path, name = 'source.mp4', options = {}) {
      const pathname = `/${randomBytes(12).toString('hex')}/${name}`;
      const length = options.length ?? true;
      files.set(pathname, { path, ranges: length && (options.ranges ?? true), delayMs: options.delayMs ?? 0, length });
      return `${origin}${pathname}`;
    },
    hits: (url) => counts.get(new URL(url).pathname) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
