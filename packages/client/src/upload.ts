import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Readable } from 'node:stream';
import type { Clock } from './clock.js';
import { withRetries, type RetryOptions } from './retry.js';
import type { Upload, paths } from './schema.js';

/** POST /v1/uploads's body, as openapi.json has it. */
export type CreateUploadBody = paths['/v1/uploads']['post']['requestBody']['content']['application/json'];
export type UploadContentType = CreateUploadBody['content_type'];

/** The bytes to upload: a file on disk, or bytes in memory. */
export type UploadSource = { path: string } | { data: Uint8Array; filename: string };

export interface UploadOptions {
  /** Defaults to the file's name. */
  filename?: string;
  /** Defaults from the extension (contentTypeFor). */
  contentType?: UploadContentType;
  /** Called as bytes leave: the total sent so far (a failed attempt's bytes are taken back). */
  onProgress?: (progress: { sentBytes: number; totalBytes: number }) => void;
  /** Multipart parts sent at once. @default 3 */
  concurrency?: number;
  signal?: AbortSignal;
}

const contentTypes: Record<string, UploadContentType> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.aif': 'audio/aiff',
  '.aiff': 'audio/aiff',
  '.aac': 'audio/aac',
  '.ogg': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.opus': 'audio/opus',
};

/** The upload content type of a file name, from its extension (SPEC "Upload flow" lists the accepted ones). */
export function contentTypeFor(filename: string): UploadContentType {
  const type = contentTypes[extname(filename).toLowerCase()];
  if (!type) throw new Error(`Cannot tell the content type of ${filename}: pass one of the types SPEC lists (e.g. video/mp4).`);
  return type;
}

/** The byte range [start, end) of the source as a stream that reports what the network pulls from it. */
interface Bytes {
  size: number;
  name: string;
  range(start: number, end: number, counted: (bytes: number) => void): ReadableStream<Uint8Array>;
}

async function bytesOf(source: UploadSource): Promise<Bytes> {
  const counting = (stream: ReadableStream<Uint8Array>, counted: (bytes: number) => void) =>
    stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counted(chunk.byteLength);
          controller.enqueue(chunk);
        },
      }),
    );
  if ('data' in source) {
    const { data } = source;
    return {
      size: data.byteLength,
      name: source.filename,
      range: (start, end, counted) => counting(new Blob([data.subarray(start, end)]).stream(), counted),
    };
  }
  const { size } = await stat(source.path);
  return {
    size,
    name: basename(source.path),
    // An empty range has no bytes to read (createReadStream's `end` is inclusive).
    range: (start, end, counted) =>
      counting(
        end > start ? (Readable.toWeb(createReadStream(source.path, { start, end: end - 1 })) as ReadableStream<Uint8Array>) : new Blob([]).stream(),
        counted,
      ),
  };
}

export interface UploadTransport {
  /** POST /v1/uploads and POST /v1/uploads/{id}/complete, through the API client. */
  create(body: CreateUploadBody): Promise<Upload>;
  complete(uploadId: string): Promise<Upload>;
  /** Plain fetch for the signed targets: they carry their own signature, never the API key. */
  fetch: (request: Request) => Promise<Response>;
  clock: Clock;
  retry: RetryOptions;
}

/**
 * SPEC "Upload flow": declare, send the raw bytes to the signed target with every returned header
 * (over 5 GiB: each part to its own target, several at once), complete. Each PUT is retried on
 * network failures and 5xx with a fresh body. Returns the completed upload: `ready`, or `failed`
 * with the reason (the bytes were not media the service accepts).
 */
export async function uploadFile(transport: UploadTransport, source: UploadSource, options: UploadOptions = {}): Promise<Upload> {
  const bytes = await bytesOf(source);
  const filename = options.filename ?? bytes.name;
  const upload = await transport.create({ filename, content_type: options.contentType ?? contentTypeFor(filename), size_bytes: bytes.size });

  let sent = 0;
  const progress = (delta: number) => {
    sent += delta;
    options.onProgress?.({ sentBytes: sent, totalBytes: bytes.size });
  };
  const put = async (method: string, url: string, headers: Record<string, string>, start: number, end: number) => {
    let attemptBytes = 0;
    const response = await withRetries(
      () => {
        progress(-attemptBytes);
        attemptBytes = 0;
        const body = bytes.range(start, end, (n) => {
          attemptBytes += n;
          progress(n);
        });
        // A streamed body: fetch sends it as it is read (duplex), with the length S3 requires.
        const request = new Request(url, {
          method,
          headers: { ...headers, 'content-length': String(end - start) },
          body,
          duplex: 'half',
          signal: options.signal ?? null,
        });
        return transport.fetch(request);
      },
      true,
      transport.clock,
      transport.retry,
      // Object storage answers 5xx (and 429) for transient trouble; a PUT of the same bytes is safe to repeat.
      (status) => status >= 500 || status === 429,
    );
    if (!response.ok) throw new Error(`The upload target refused the bytes ${start}-${end}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
    await response.body?.cancel();
  };

  if (upload.upload_parts) {
    let offset = 0;
    const parts = upload.upload_parts.map((part) => ({ ...part, start: offset, end: (offset += part.size_bytes) }));
    const queue = [...parts];
    const worker = async () => {
      // docs/uploads.md: each part's bytes to its own target, with no extra headers.
      for (let part = queue.shift(); part; part = queue.shift()) await put('PUT', part.upload_url, {}, part.start, part.end);
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 3, parts.length) }, worker));
  } else if (upload.upload_url) {
    await put(upload.upload_method ?? 'PUT', upload.upload_url, upload.upload_headers ?? {}, 0, bytes.size);
  } else {
    throw new Error(`Upload ${upload.upload_id} came back without a target.`);
  }
  return transport.complete(upload.upload_id);
}
