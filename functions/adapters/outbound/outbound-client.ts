import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { http } from '../../shared/node-http.js';
import { sameAddress } from './address-policy.js';
import { OutboundRequestError, OutboundRequestFailed, OutboundRequestRefused } from './errors.js';
import { redactUrl } from './redact.js';
import { systemResolver, type DnsResolver } from './resolver.js';
import { checkUrl, pinnedLookup, resolveTarget, type PinnedTarget, type TargetPolicy } from './target.js';

/**
 * The one way the service makes outbound HTTP requests (DESIGN §9, §10): source preflight,
 * media acquisition and webhook delivery. Per hop: the URL is checked, its host resolved once,
 * every address checked, and the connection pinned to that answer (node:http/https with a
 * `lookup` that returns the checked addresses; SNI, certificate verification and Host still use
 * the hostname). Redirects are followed by hand, at most five, each hop checked like the first.
 * Time (connect, headers, idle, whole exchange) and bytes are bounded.
 *
 * Neither compression nor connection reuse: no Accept-Encoding is sent (the body arrives as
 * served, so maxBytes bounds what is stored, not a decompression bomb), and every hop has its
 * own socket (a pooled socket would outlive the answer it was pinned to).
 */

export const MAX_REDIRECTS = 5;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** Headers the client owns: framing, routing and hop-by-hop. */
const reservedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'expect']);
/** Headers not carried to another origin on a redirect. */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization'];

interface OutboundClientOptions {
  /** Default: the operating system's resolver. */
  resolver?: DnsResolver | undefined;
  /** Local host only (`LOCAL_ALLOW_LOOPBACK_TARGETS=1`): loopback targets allowed, over http too. */
  allowLoopback?: boolean | undefined;
  /** Trust anchors replacing the system CA store (tests; a local host with its own CA). */
  ca?: string | Buffer | Array<string | Buffer> | undefined;
  /** Default User-Agent; a request's own `user-agent` header wins. */
  userAgent?: string | undefined;
}

type OutboundMethod = 'GET' | 'HEAD' | 'POST';

interface OutboundRequest {
  url: string | URL;
  method?: OutboundMethod | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  /** POST only: sent exactly as given, with its Content-Length. */
  body?: Uint8Array | undefined;
  /** A Range GET: `bytes=start-end` (end inclusive; absent: to the end). */
  range?: { start: number; end?: number | undefined } | undefined;
  /** `follow` (default): up to MAX_REDIRECTS, each hop re-checked. `manual`: a 3xx is the response. */
  redirect?: 'follow' | 'manual' | undefined;
  /** Per hop, from its start (DNS included) to an established (TLS) connection. Default 10 s. */
  connectTimeoutMs?: number | undefined;
  /** Per hop, from its start to the response headers. Default 15 s. */
  headersTimeoutMs?: number | undefined;
  /** No byte received for this long while reading the body. Default 30 s. */
  idleTimeoutMs?: number | undefined;
  /** The whole exchange, every hop and the whole body. Default 30 s (`fetch`), 1 h (`stream`). */
  totalTimeoutMs?: number | undefined;
  /** Aborting fails the exchange with reason `aborted`. */
  signal?: AbortSignal | undefined;
}

interface BufferedRequest extends OutboundRequest {
  /** Body bytes kept. Default 1 MiB. */
  maxBytes?: number | undefined;
  /**
   * `fail` (default): a larger body (or a larger declared Content-Length) fails with `too_large`.
   * `truncate`: the first maxBytes are kept, the rest is not read (webhook delivery reports).
   */
  overflow?: 'fail' | 'truncate' | undefined;
}

interface StreamRequest extends OutboundRequest {
  /** A larger body (or a larger declared Content-Length) fails with `too_large`. */
  maxBytes: number;
}

interface OutboundResponseHead {
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that answered, after redirects. May carry a signed query: never log it (use `target`). */
  finalUrl: URL;
  /** `finalUrl` redacted. */
  target: string;
  redirects: number;
}

interface OutboundBufferedResponse extends OutboundResponseHead {
  body: Buffer;
  /** overflow `truncate` only: the body was longer than `body`. */
  truncated: boolean;
  /** From the start of the exchange to the end of the body (or of what was kept). */
  durationMs: number;
}

export interface OutboundStreamResponse extends OutboundResponseHead {
  /**
   * The body, bounded by maxBytes and the time limits; it errors with an OutboundRequestFailed
   * (`too_large`, `timeout`, `aborted`, `network_error` for a body cut short). Consume it or
   * destroy it: the connection stays open until then.
   */
  body: Readable;
  /** From the start of the exchange to the final response's headers. */
  headersMs: number;
}

export interface OutboundClient {
  /** The checks of one hop without a request: URL rules, DNS once, every address. */
  check(url: string | URL): Promise<PinnedTarget>;
  /** A small body, buffered: preflight, webhooks. */
  fetch(request: BufferedRequest): Promise<OutboundBufferedResponse>;
  /** A large body, streamed: acquisition. */
  stream(request: StreamRequest): Promise<OutboundStreamResponse>;
}

const MiB = 1024 ** 2;

/** Every limit of one exchange, defaults applied and checked once. */
interface Bounds {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  maxBytes: number;
}

function boundsOf(request: OutboundRequest & { maxBytes?: number | undefined }, totalTimeoutMs: number, maxBytes: number): Bounds {
  const bounds: Bounds = {
    connectTimeoutMs: request.connectTimeoutMs ?? 10_000,
    headersTimeoutMs: request.headersTimeoutMs ?? 15_000,
    idleTimeoutMs: request.idleTimeoutMs ?? 30_000,
    totalTimeoutMs: request.totalTimeoutMs ?? totalTimeoutMs,
    maxBytes: request.maxBytes ?? maxBytes,
  };
  for (const [name, value] of Object.entries(bounds)) {
    // setTimeout takes at most 2^31 - 1 ms (24.8 days); a NaN limit would be no limit at all.
    const max = name === 'maxBytes' ? Number.MAX_SAFE_INTEGER : 2 ** 31 - 1;
    if (!Number.isSafeInteger(value) || value < (name === 'maxBytes' ? 0 : 1) || value > max) {
      throw new TypeError(`${name} must be an integer from ${name === 'maxBytes' ? 0 : 1} to ${max}`);
    }
  }
  return bounds;
}

interface Deps {
  policy: TargetPolicy;
  resolver: DnsResolver;
  ca: OutboundClientOptions['ca'];
  userAgent: string;
}

export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const deps: Deps = {
    policy: { allowLoopback: options.allowLoopback ?? false },
    resolver: options.resolver ?? systemResolver,
    ca: options.ca,
    userAgent: options.userAgent ?? 'media-scanner-service',
  };
  return {
    check: (url) => resolveTarget(url, deps.policy, deps.resolver),
    fetch: (request) => fetchBuffered(request, deps),
    stream: (request) => fetchStream(request, deps),
  };
}

async function fetchBuffered(request: BufferedRequest, deps: Deps): Promise<OutboundBufferedResponse> {
  const bounds = boundsOf(request, 30_000, MiB);
  const { maxBytes } = bounds;
  const truncate = request.overflow === 'truncate';
  const exchange = startExchange(request, bounds);
  try {
    const { response, head } = await open(request, bounds, deps, exchange.signal);
    if (!truncate) refuseDeclaredLength(response, request, maxBytes, head.target);
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const limit = truncate ? Infinity : maxBytes;
    for await (const chunk of bodyChunks(response, { ...bounds, maxBytes: limit }, head.target, exchange.signal)) {
      const room = maxBytes - kept;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        kept = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
    return { ...head, body: Buffer.concat(chunks, kept), truncated, durationMs: exchange.elapsedMs() };
  } finally {
    exchange.end();
  }
}

async function fetchStream(request: StreamRequest, deps: Deps): Promise<OutboundStreamResponse> {
  const bounds = boundsOf(request, 3_600_000, request.maxBytes);
  const exchange = startExchange(request, bounds);
  try {
    const { response, head } = await open(request, bounds, deps, exchange.signal);
    refuseDeclaredLength(response, request, bounds.maxBytes, head.target);
    const headersMs = exchange.elapsedMs();
    const body = Readable.from(bodyChunks(response, bounds, head.target, exchange.signal), { objectMode: false });
    // A paused consumer (or one that has not started reading) still learns of the deadline or an
    // abort: pipeline and async iteration report a stream's error however late they attach. This
    // listener only keeps an error raised before anyone listens from crashing the process.
    exchange.signal.addEventListener('abort', () => body.destroy(exchange.signal.reason as Error), { once: true });
    body.on('error', () => undefined);
    body.once('close', () => {
      response.destroy();
      exchange.end();
    });
    return { ...head, body, headersMs };
  } catch (error) {
    exchange.end();
    throw error;
  }
}

interface Exchange {
  /** Aborted, with an OutboundRequestFailed as reason, at the deadline or the caller's abort. */
  signal: AbortSignal;
  elapsedMs(): number;
  /** Clears the deadline; safe to call more than once. */
  end(): void;
}

function startExchange(request: OutboundRequest, { totalTimeoutMs: totalMs }: Bounds): Exchange {
  const started = performance.now();
  const controller = new AbortController();
  const target = redactUrl(request.url);
  const timer = setTimeout(() => controller.abort(new OutboundRequestFailed('timeout', target, `the exchange took longer than ${totalMs} ms`)), totalMs);
  const onCallerAbort = () => controller.abort(new OutboundRequestFailed('aborted', target, 'the request was aborted'));
  if (request.signal?.aborted) onCallerAbort();
  else request.signal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    elapsedMs: () => Math.round(performance.now() - started),
    end: () => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

interface Hop {
  url: URL;
  method: OutboundMethod;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
}

/** Sends the request, following redirects; resolves with the final response, its body unread. */
async function open(
  request: OutboundRequest,
  bounds: Bounds,
  deps: Deps,
  signal: AbortSignal,
): Promise<{ response: IncomingMessage; head: OutboundResponseHead }> {
  let hop = firstHop(request, deps);
  for (let redirects = 0; ; redirects += 1) {
    const response = await send(hop, bounds, deps, signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (request.redirect === 'manual' || !redirectStatuses.has(status) || location === undefined) {
      return { response, head: { status, headers: response.headers, finalUrl: hop.url, target: redactUrl(hop.url), redirects } };
    }
    response.destroy();
    if (redirects === MAX_REDIRECTS) {
      throw new OutboundRequestFailed('too_many_redirects', redactUrl(hop.url), `more than ${MAX_REDIRECTS} redirects`);
    }
    hop = nextHop(hop, status, location, deps);
  }
}

function firstHop(request: OutboundRequest, deps: Deps): Hop {
  const url = checkUrl(request.url, deps.policy);
  const method = request.method ?? 'GET';
  if (request.body !== undefined && method !== 'POST') throw new TypeError(`a ${method} request has no body`);
  const headers: Record<string, string> = { 'user-agent': deps.userAgent };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (reservedHeaders.has(lower)) throw new TypeError(`the ${lower} header is set by the outbound client`);
    http.validateHeaderName(lower);
    http.validateHeaderValue(lower, value);
    headers[lower] = value;
  }
  if (request.range) headers.range = rangeHeader(request.range);
  return { url, method, headers, body: method === 'POST' ? (request.body ?? new Uint8Array()) : undefined };
}

function rangeHeader({ start, end }: { start: number; end?: number | undefined }): string {
  const valid = Number.isSafeInteger(start) && start >= 0 && (end === undefined || (Number.isSafeInteger(end) && end >= start));
  if (!valid) throw new TypeError('range: start and end must be integers with 0 <= start <= end');
  return `bytes=${start}-${end ?? ''}`;
}

/** The next hop of a redirect, as the Fetch standard rewrites it. Its URL is checked by `send`. */
function nextHop(previous: Hop, status: number, location: string, deps: Deps): Hop {
  let url: URL;
  try {
    url = new URL(location, previous.url);
  } catch {
    throw new OutboundRequestFailed('bad_redirect', redactUrl(previous.url), 'the redirect Location is not a URL');
  }
  // Refused here with the redirect's own target (the Location may be written any way at all).
  checkUrl(url, deps.policy);
  const headers = { ...previous.headers };
  let { method, body } = previous;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    delete headers['content-type'];
  }
  if (url.origin !== previous.url.origin) for (const name of credentialHeaders) delete headers[name];
  return { url, method, headers, body };
}

/** One hop: check and resolve, connect to a checked address, send, wait for the headers. */
function send(hop: Hop, { connectTimeoutMs, headersTimeoutMs }: Bounds, deps: Deps, signal: AbortSignal): Promise<IncomingMessage> {
  const target = redactUrl(hop.url);
  return new Promise<IncomingMessage>((resolve, reject) => {
    let settled = false;
    let request: ClientRequest | undefined;
    const finish = (error: unknown, response?: IncomingMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
      signal.removeEventListener('abort', onAbort);
      if (response) resolve(response);
      else {
        request?.destroy();
        reject(asOutboundError(error, target));
      }
    };
    const onAbort = () => finish(signal.reason);
    const connectTimer = setTimeout(
      () => finish(new OutboundRequestFailed('timeout', target, `no connection within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
    const headersTimer = setTimeout(
      () => finish(new OutboundRequestFailed('timeout', target, `no response headers within ${headersTimeoutMs} ms`)),
      headersTimeoutMs,
    );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });

    const connect = (pinned: PinnedTarget) => {
      if (settled) return;
      const secure = pinned.url.protocol === 'https:';
      const headers: Record<string, string> = { ...hop.headers };
      if (hop.body) headers['content-length'] = String(hop.body.byteLength);
      request = (secure ? https : http).request({
        hostname: pinned.hostname,
        port: pinned.port,
        path: `${pinned.url.pathname}${pinned.url.search}`,
        method: hop.method,
        headers,
        agent: false,
        lookup: pinnedLookup(pinned.addresses),
        ...(secure && deps.ca !== undefined ? { ca: deps.ca } : {}),
      });
      request.on('socket', (socket) => {
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          // Belt and braces: the peer must be one of the checked addresses.
          const peer = socket.remoteAddress ?? '';
          if (!pinned.addresses.some(({ address }) => sameAddress(address, peer))) {
            finish(new OutboundRequestRefused('forbidden_address', target, 'the connection reached an unchecked address'));
          } else clearTimeout(connectTimer);
        });
      });
      request.on('response', (response) => finish(null, response));
      request.on('error', (error) => finish(error));
      request.end(hop.body === undefined ? undefined : Buffer.from(hop.body.buffer, hop.body.byteOffset, hop.body.byteLength));
    };
    resolveTarget(hop.url, deps.policy, deps.resolver).then((pinned) => {
      try {
        connect(pinned);
      } catch (error) {
        finish(error);
      }
    }, finish);
  });
}

function refuseDeclaredLength(response: IncomingMessage, request: OutboundRequest, maxBytes: number, target: string): void {
  if (request.method === 'HEAD') return; // Content-Length then describes the resource, not a body.
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new OutboundRequestFailed('too_large', target, `the body is declared as ${declared} bytes, more than ${maxBytes}`);
  }
}

/**
 * The body, chunk by chunk, within maxBytes and the idle and total bounds. Ends early (the
 * consumer stops or fails): the connection is closed.
 */
async function* bodyChunks(response: IncomingMessage, { idleTimeoutMs, maxBytes }: Bounds, target: string, signal: AbortSignal): AsyncGenerator<Buffer> {
  const onAbort = () => response.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  response.socket.setTimeout(idleTimeoutMs, () => response.destroy(new OutboundRequestFailed('timeout', target, `no body bytes for ${idleTimeoutMs} ms`)));
  let received = 0;
  try {
    signal.throwIfAborted();
    for await (const chunk of response as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxBytes) throw new OutboundRequestFailed('too_large', target, `the body is longer than ${maxBytes} bytes`);
      yield chunk;
    }
  } catch (error) {
    throw asOutboundError(error, target, 'the connection failed while the body was read');
  } finally {
    signal.removeEventListener('abort', onAbort);
    response.destroy();
  }
}

const connectCodes = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT']);

/** Node's errors as typed failures; their messages are replaced (the cause keeps them, for logs). */
function asOutboundError(error: unknown, target: string, detail = 'the connection failed'): OutboundRequestError {
  if (error instanceof OutboundRequestError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (connectCodes.has(code)) return new OutboundRequestFailed('connect_failed', target, `no connection (${code})`, { cause: error });
  if (/^ERR_(TLS|SSL)_|CERT|SELF_SIGNED|UNABLE_TO_|^EPROTO$/.test(code)) {
    return new OutboundRequestFailed('tls_failed', target, `TLS failed (${code})`, { cause: error });
  }
  return new OutboundRequestFailed('network_error', target, code ? `${detail} (${code})` : detail, { cause: error });
}
