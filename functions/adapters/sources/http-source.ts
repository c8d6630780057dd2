import { open as openFile } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { MediaInspector } from '../../domain/uploads/ports.js';
import type { SourceFacts } from '../../domain/sources/ports.js';
import type { OutboundClient, OutboundStreamResponse } from '../outbound/outbound-client.js';
import { fileRangeSource, type RangeSource } from './range-bridge.js';
import { inTempDir, saveBody, type DownloadedFile } from './temp-files.js';
import { unreadable, verifyVideo } from './verify-video.js';

/**
 * Direct media URLs (storage links in their download form, trusted hosts) read through the
 * outbound client only. Preflight probes by Range reads, nothing stored; a server without Range
 * support is downloaded whole (bounded) to a temporary file and probed there.
 */
export interface HttpSourceDeps {
  outbound: OutboundClient;
  inspector: MediaInspector;
  maxDurationMs: number;
  /** The most a preflight downloads from a source without Range support. */
  fallbackMaxBytes: number;
  /** Whole downloads (acquisition, the preflight fallback). */
  downloadTimeoutMs: number;
  tempRoot: string;
}

export async function preflightHttp(deps: HttpSourceDeps, url: URL): Promise<SourceFacts> {
  // Any length: the answer is read only as far as needed (its first byte, or the prefix below).
  const first = await open(deps, url, { range: { start: 0, end: 0 }, maxBytes: Number.MAX_SAFE_INTEGER });
  const title = titleOf(first.headers);
  const total = first.status === 206 ? totalOf(first.headers['content-range']) : undefined;
  if (total !== undefined) {
    first.body.destroy();
    const durationMs = await verifyVideo(deps.inspector, remoteRangeSource(deps.outbound, first.finalUrl, total), deps.maxDurationMs);
    return { mediaKind: 'video', durationMs, sizeBytes: total, title };
  }
  if (first.status !== 200) first.body.destroy();
  const whole = first.status === 200 ? first : await open(deps, first.finalUrl, { maxBytes: Number.MAX_SAFE_INTEGER });
  const declared = Number(whole.headers['content-length']);
  const sizeIfCut = Number.isSafeInteger(declared) && declared > 0 ? declared : null;
  return inTempDir(deps.tempRoot, async (dir) => {
    const path = join(dir, 'source');
    const prefix = await bodyPrefix(whole.body, path);
    try {
      // A streamable file (MP4 with faststart, Matroska/WebM) is described by its first bytes:
      // measured from them, at once; acquisition reads it whole.
      let read = await prefix.fillTo(Math.min(INDEX_PREFIX_BYTES, deps.fallbackMaxBytes));
      if (!read.complete) {
        const fromIndex = await verifyVideo(deps.inspector, fileRangeSource(path, read.bytes), deps.maxDurationMs, { prefixOnly: true }).catch(() => undefined);
        if (fromIndex !== undefined) return { mediaKind: 'video' as const, durationMs: fromIndex, sizeBytes: sizeIfCut, title };
        read = await prefix.fillTo(deps.fallbackMaxBytes);
      }
      const durationMs = await verifyVideo(deps.inspector, fileRangeSource(path, read.bytes), deps.maxDurationMs, { prefixOnly: !read.complete }).catch(
        (error: unknown) => {
          if (read.complete) throw error;
          throw unreadable(
            `The source serves no byte ranges, and its first ${read.bytes} bytes do not describe it: serve it with byte ranges, or as a streamable file (an MP4 with its index at the start, "faststart").`,
          );
        },
      );
      return { mediaKind: 'video' as const, durationMs, sizeBytes: read.complete ? read.bytes : sizeIfCut, title };
    } finally {
      await prefix.close();
    }
  });
}

/** A streamable file's index is in its first bytes: this many are probed before any more is read. */
const INDEX_PREFIX_BYTES = 32 * 1024 ** 2;

/**
 * A body written to `path` as far as asked (fillTo), never further; `complete` once the body
 * ended. close() stops reading it.
 */
async function bodyPrefix(body: Readable, path: string) {
  const file = await openFile(path, 'wx', 0o600);
  const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let bytes = 0;
  let complete = false;
  let carried: Buffer | undefined;
  return {
    async fillTo(limit: number): Promise<{ bytes: number; complete: boolean }> {
      while (!complete && bytes < limit) {
        let chunk = carried;
        carried = undefined;
        if (!chunk) {
          const next = await chunks.next();
          if (next.done) {
            complete = true;
            break;
          }
          chunk = next.value;
        }
        const kept = chunk.subarray(0, limit - bytes);
        if (kept.length < chunk.length) carried = chunk.subarray(kept.length);
        await file.write(kept);
        bytes += kept.length;
      }
      return { bytes, complete };
    },
    async close(): Promise<void> {
      body.destroy();
      await file.close();
    },
  };
}

/** Where a download may also go while it is written to disk: the bucket, as one streamed PUT of a declared length. */
type StreamingCopy = (body: Readable, sizeBytes: number, contentType: string) => Promise<void>;

/**
 * The whole source into `dir`, at most maxBytes. With `alsoTo`, a source that declares its length
 * (up to `alsoToMaxBytes`) is streamed there too as it arrives, so storing it costs no second
 * pass over the file (`streamed` says whether it was).
 */
export async function downloadHttp(
  deps: HttpSourceDeps,
  url: URL,
  dir: string,
  maxBytes: number,
  alsoTo?: { copy: StreamingCopy; maxBytes: number },
): Promise<DownloadedFile & { streamed: boolean }> {
  const response = await open(deps, url, { maxBytes });
  const path = join(dir, 'source');
  const type = String(response.headers['content-type'] ?? '');
  const contentType = /^video\/[\w.+-]+$/i.test(type) ? type : 'application/octet-stream';
  const declared = Number(response.headers['content-length']);
  const streamed = alsoTo !== undefined && Number.isSafeInteger(declared) && declared > 0 && declared <= alsoTo.maxBytes;
  let sizeBytes: number;
  if (streamed) {
    // One body, two readers; a failure of either side ends the other (pipe alone would not).
    const toDisk = new PassThrough();
    const toCopy = new PassThrough();
    const fail = (error: Error) => [toDisk, toCopy, response.body].forEach((stream) => stream.destroy(error));
    response.body.once('error', fail);
    response.body.pipe(toDisk);
    response.body.pipe(toCopy);
    [sizeBytes] = await Promise.all([
      saveBody(toDisk, path),
      alsoTo.copy(toCopy, declared, contentType).catch((error: unknown) => {
        fail(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }),
    ]);
  } else {
    sizeBytes = await saveBody(response.body, path);
  }
  return { path, sizeBytes, contentType, title: titleOf(response.headers), streamed };
}

/** A GET whose answer can be media: 200 or 206, not a web page (a login or share page of a storage service). */
async function open(deps: HttpSourceDeps, url: URL, request: { range?: { start: number; end: number }; maxBytes: number }): Promise<OutboundStreamResponse> {
  const response = await deps.outbound.stream({ url, ...request, totalTimeoutMs: deps.downloadTimeoutMs });
  if (response.status !== 200 && response.status !== 206) {
    response.body.destroy();
    throw unreadable(`The source answered HTTP ${response.status}.`);
  }
  if (/^\s*text\/html\b/i.test(String(response.headers['content-type'] ?? ''))) {
    response.body.destroy();
    throw unreadable('The link leads to a web page, not to a media file: share the file publicly, or use a direct link.');
  }
  return response;
}

/** Range reads of the source (at its final URL, after redirects), each checked against the first answer. */
function remoteRangeSource(outbound: OutboundClient, url: URL, size: number): RangeSource {
  return {
    size,
    async read(start, end) {
      const response = await outbound.stream({ url, range: { start, end }, maxBytes: end - start + 1 });
      const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(String(response.headers['content-range'] ?? ''));
      if (response.status !== 206 || Number(range?.[1]) !== start || (range?.[2] !== '*' && Number(range?.[2]) !== size)) {
        response.body.destroy();
        throw unreadable('The source answered a range read inconsistently.');
      }
      return response.body;
    },
  };
}

/** The full length in `Content-Range: bytes 0-0/<total>`; undefined when the server does not say. */
function totalOf(contentRange: string | undefined): number | undefined {
  const total = /^bytes \d+-\d+\/(\d+)$/.exec(contentRange ?? '')?.[1];
  return total === undefined ? undefined : Number(total);
}

/** The file name a storage service sends (Content-Disposition), as the source's title. */
function titleOf(headers: IncomingHttpHeaders): string | null {
  const disposition = headers['content-disposition'] ?? '';
  const extended = /filename\*\s*=\s*utf-8''([^;\s]+)/i.exec(disposition)?.[1];
  let name: string | undefined;
  try {
    name = extended === undefined ? undefined : decodeURIComponent(extended);
  } catch {
    name = undefined;
  }
  name ??= /filename\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(disposition)?.[1];
  return name?.trim().slice(0, 300) || null;
}
