import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { ApiError, type ErrorCode } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import { CONSOLE_API_PREFIX, matchConsoleRoute, matchRoute, notFoundHandler, routeKey as keyOfRoute, type AnyRouteDefinition } from '../routes.js';
import { LOCAL_SIGN_IN_PATH } from '../domain/accounts/sign-in-links.js';
import { consoleFile, consoleSecurityHeaders, signInWithLink, type LocalConsoleOptions } from './console-host.js';
import { handler as authorize } from '../authorizer/handler.js';
import { keepIdleConnections } from './idle-connections.js';
import { lambdaContext } from './lambda-context.js';
import { inUnit } from './unit-context.js';
import { units } from '../runtime/contracts.js';
import type { ApiEvent, ApiResponse } from '../http/types.js';

/** API Gateway HTTP APIs refuse request bodies over 10 MB; the local host does the same. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/**
 * Header lines a request may carry. API Gateway's HTTP API quotas bound only the bytes (10,240
 * of request line and header values, not adjustable) and state no count, so this is the edge
 * convention (Apache's LimitRequestFields, Tomcat, Envoy, nghttpx: 100): far above what a client
 * sends (about 20), and low enough that the local host is never laxer than AWS. node:http's own
 * default (2,000) let hundreds through.
 */
export const MAX_HEADER_LINES = 100;
const functionsDir = join(import.meta.dirname, '..');

type RouteHandler = (event: ApiEvent | APIGatewayProxyEventV2, context: Context) => Promise<ApiResponse>;
const loaded = new Map<string, Promise<RouteHandler>>();

/** Loads a route's entry module once, the way a warm Lambda keeps its handler. */
function loadHandler(entry: string): Promise<RouteHandler> {
  let handler = loaded.get(entry);
  if (!handler) {
    handler = import(pathToFileURL(join(functionsDir, `${entry}.ts`)).href).then((module: { handler: RouteHandler }) => module.handler);
    loaded.set(entry, handler);
  }
  return handler;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** HTTP APIs (payload 2.0) hand a request's cookies over in `cookies`, not among the headers. */
function headersAndCookies(req: IncomingMessage): { headers: Record<string, string>; cookies?: string[] } {
  const { cookie, ...headers } = headersOf(req);
  return cookie ? { headers, cookies: cookie.split(';').map((pair) => pair.trim()) } : { headers };
}

/** Builds the API Gateway v2 event a route Lambda receives on AWS. */
function toEvent(req: IncomingMessage, url: URL, body: Buffer, requestId: string, routeKey: string): APIGatewayProxyEventV2 {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  const method = req.method ?? 'GET';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...headersAndCookies(req),
    ...(url.search ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: body.toString('utf8'), isBase64Encoded: false } : { isBase64Encoded: false }),
  };
}

/** The catch-all's answer (404 or 405 in the envelope), as API Gateway's $default route gives it. */
async function unmatched(req: IncomingMessage, url: URL, body: Buffer, requestId: string): Promise<ApiResponse> {
  const notFound = await loadHandler(notFoundHandler);
  return inUnit(units.fallback, () => notFound(toEvent(req, url, body, requestId, '$default'), lambdaContext(notFoundHandler, requestId)));
}

/**
 * A route's request as API Gateway hands it over: the Lambda authorizer (every route's, the
 * console's included) runs first, in its own unit, with the route key, the headers and the cookies
 * (HTTP APIs give an authorizer both); then the route's function in its unit, with the authorizer's
 * context. A console twin runs its API route's function: the same unit, so the same grants.
 */
async function authorizedRoute(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
  routeKey: string,
  route: AnyRouteDefinition,
  pathParameters: Record<string, string>,
): Promise<ApiResponse> {
  const event = toEvent(req, url, body, requestId, routeKey);
  const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${event.requestContext.http.method}${url.pathname}`,
    identitySource: [],
    routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    cookies: event.cookies ?? [],
    headers: event.headers,
    ...(event.queryStringParameters ? { queryStringParameters: event.queryStringParameters } : {}),
    requestContext: event.requestContext,
    pathParameters,
  };
  const auth = await inUnit(units.authorizer, () => authorize(authorizerEvent));
  const routeEvent: ApiEvent = { ...event, pathParameters, requestContext: { ...event.requestContext, authorizer: { lambda: auth.context } } };
  const handler = await loadHandler(route.handler);
  return inUnit(units.route(keyOfRoute(route)), () => handler(routeEvent, lambdaContext(route.handler, requestId)));
}

/**
 * Everything under /console, as the AWS host's CloudFront and HTTP API serve it: the console's
 * routes and twins behind the session, the sign-in link's step, and the console's files; each
 * answer with the console's security headers.
 */
async function dispatchConsole(req: IncomingMessage, url: URL, body: Buffer, requestId: string, options: LocalConsoleOptions): Promise<ApiResponse> {
  const method = req.method ?? 'GET';
  let response: ApiResponse;
  if (url.pathname === LOCAL_SIGN_IN_PATH && method === 'GET') {
    response = await signInWithLink(options, url.searchParams.get('token') ?? '', requestId);
  } else if (url.pathname.startsWith(`${CONSOLE_API_PREFIX}/`)) {
    const match = matchConsoleRoute(method, url.pathname);
    response =
      match.kind === 'route'
        ? await authorizedRoute(req, url, body, requestId, match.route.key, match.route.route, match.pathParameters)
        : await unmatched(req, url, body, requestId);
  } else if (method === 'GET' || method === 'HEAD') response = consoleFile(options.assets, url.pathname, requestId);
  else response = await unmatched(req, url, body, requestId);
  return { ...response, headers: { ...response.headers, ...consoleSecurityHeaders(options.mediaOrigin) } };
}

const isConsolePath = (pathname: string) => pathname === '/console' || pathname.startsWith('/console/');

async function dispatch(req: IncomingMessage, body: Buffer, requestId: string, baseUrl: string, consoleOptions?: LocalConsoleOptions): Promise<ApiResponse> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', baseUrl);
  } catch {
    return errorResponse(new ApiError('not_found', 'No route for this request target.'), requestId);
  }
  if (consoleOptions && isConsolePath(url.pathname)) return dispatchConsole(req, url, body, requestId, consoleOptions);
  const match = matchRoute(req.method ?? 'GET', url.pathname);
  if (match.kind !== 'route') return unmatched(req, url, body, requestId);
  return authorizedRoute(req, url, body, requestId, keyOfRoute(match.route), match.route, match.pathParameters);
}

/** What the local host tolerates of one client (docs/local-host.md; the settings: docs/configuration.md). */
export interface ServerLimits {
  /** A request's headers, and then its whole body, must each arrive within this time (408 otherwise). */
  requestTimeoutMs: number;
  /** Connections one client address may hold open at once; a request on one more is answered 429. */
  maxConnectionsPerClient: number;
}

export const defaultServerLimits: ServerLimits = { requestTimeoutMs: 30_000, maxConnectionsPerClient: 256 };

/**
 * After an early answer (413, 408, 429, or a malformed request) what the client still sends is
 * read and dropped for at most this long and this much before the connection closes.
 */
const DRAIN_MS = 5_000;
const DRAIN_BYTES = 64 * 1024 * 1024;

type Received = { kind: 'body'; body: Buffer } | { kind: 'too_large' | 'timeout' | 'aborted' };

/** The whole body, within the size limit and the time limit; or why not. */
function receiveBody(req: IncomingMessage, timeoutMs: number): Promise<Received> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.resolve({ kind: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) finish({ kind: 'too_large' });
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: 'body', body: Buffer.concat(chunks) });
    const onClose = () => finish({ kind: 'aborted' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    function finish(received: Received) {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(received);
    }
    req.on('data', onData).once('end', onEnd).once('close', onClose);
  });
}

/** Connections answered early: nothing more is read from them as requests. */
const answeredEarly = new WeakSet<Socket>();

/**
 * Answers a request that will not be read to its end (`request`), or a connection whose bytes are
 * not HTTP: the whole answer and a FIN first; then what the client still sends is read and dropped
 * until it has sent all of it or closes (within DRAIN_MS and DRAIN_BYTES), and only then the
 * connection closes. Bytes that met a closed socket would be answered with a reset, which can
 * destroy the answer at the client before it has read it.
 */
function answerEarly(socket: Socket, response: ApiResponse, request?: IncomingMessage, head = request?.method === 'HEAD'): void {
  answeredEarly.add(socket);
  const flushed = new Promise<void>((resolve) => socket.end(rawResponse(response, head), resolve));
  let bytes = 0;
  const timer = setTimeout(close, DRAIN_MS);
  function close() {
    clearTimeout(timer);
    void flushed.then(() => socket.destroy());
  }
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DRAIN_BYTES) close();
  });
  socket.once('end', close);
  request?.once('end', close).resume();
}

function send(res: ServerResponse, response: ApiResponse): void {
  const body = response.isBase64Encoded ? Buffer.from(response.body, 'base64') : Buffer.from(response.body);
  res.writeHead(response.statusCode, {
    ...response.headers,
    ...(response.cookies?.length ? { 'set-cookie': response.cookies } : {}),
    'content-length': body.length,
  });
  res.end(body);
}

/**
 * The envelope as raw HTTP, written on the connection itself (answerEarly). The answer to a HEAD
 * request has no body (RFC 9110 §9.3.2): a client reads none, and would take its bytes for garbage.
 */
function rawResponse(response: ApiResponse, headOnly = false): string {
  const headers = { ...response.headers, connection: 'close', 'content-length': String(Buffer.byteLength(response.body)) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${response.statusCode} ${STATUS_CODES[response.statusCode]}\r\n${lines.join('')}\r\n${headOnly ? '' : response.body}`;
}

/** What node:http's parser reports, in the envelope (Node's own answers have no body). */
function clientErrorOf(error: NodeJS.ErrnoException, limits: ServerLimits): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'request_header_fields_too_large',
        `The request line and headers are limited to ${maxHeaderSize / 1024} KiB and ${MAX_HEADER_LINES} header lines.`,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large', 'Chunk extensions are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', `The request headers did not arrive within ${limits.requestTimeoutMs / 1000} s.`);
    default:
      return new ApiError('validation_failed', 'The request is not valid HTTP/1.1.');
  }
}

/**
 * Open connections per client address: `overCap(socket)` is true for a connection beyond the cap
 * (counted while it is open).
 */
function connectionsPerClient(server: Server, cap: number): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  const over = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    if (count > cap) over.add(socket);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left) open.set(address, left);
      else open.delete(address);
    });
  });
  return (socket) => over.has(socket);
}

/**
 * node:http on loopback, dispatching from the route table exactly as API Gateway would, and, as
 * its edge would, bounding what one client may hold: the time to send a request, the size of its
 * body, the connections open at once; every refusal is answered in the envelope (DESIGN §4).
 */
export function createApiServer(limits: ServerLimits = defaultServerLimits, consoleOptions?: LocalConsoleOptions): Server {
  const server = createServer({
    // Headers: node:http's own clock (answered in 'clientError' below). Bodies: receiveBody's.
    headersTimeout: limits.requestTimeoutMs,
    requestTimeout: 0,
    connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
  });
  keepIdleConnections(server);
  // A line past the count is a parser error (HPE_HEADER_OVERFLOW), as bytes past maxHeaderSize are: answered 431 below.
  server.maxHeadersCount = MAX_HEADER_LINES;
  const baseUrl = () => {
    const address = server.address();
    return `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;
  };
  const overCap = connectionsPerClient(server, limits.maxConnectionsPerClient);
  /** Sockets with a response under way: a parser error on them can only close them. */
  const responding = new WeakSet<Socket>();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (answeredEarly.has(req.socket)) return void req.resume();
    const requestId = randomUUID();
    const refuse = (code: ErrorCode, message: string) => answerEarly(req.socket, errorResponse(new ApiError(code, message), requestId), req);
    responding.add(req.socket);
    res.once('close', () => responding.delete(req.socket));
    req.on('error', () => undefined); // a client gone mid-body: told by 'close' below
    if (overCap(req.socket)) {
      refuse('rate_limited', `Too many open connections from this address (at most ${limits.maxConnectionsPerClient}).`);
      return;
    }
    void receiveBody(req, limits.requestTimeoutMs).then(async (received) => {
      switch (received.kind) {
        case 'aborted':
          console.info(`local host: ${req.method} ${req.url?.slice(0, 200)}: the client closed the connection before its body arrived`);
          return;
        case 'too_large':
          return refuse('payload_too_large', `Request bodies are limited to ${MAX_BODY_BYTES / 1024 / 1024} MB.`);
        case 'timeout':
          return refuse('request_timeout', `The request body did not arrive within ${limits.requestTimeoutMs / 1000} s.`);
      }
      try {
        send(res, await dispatch(req, received.body, requestId, baseUrl(), consoleOptions));
      } catch (error) {
        // Handlers already answer in the envelope; this is the host itself failing.
        console.error('local host: request failed', error);
        send(res, errorResponse(error, requestId));
      }
    });
  });

  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    if (answeredEarly.has(socket)) return; // a broken parser reports again for every further chunk
    if (error.code === 'ECONNRESET' || !socket.writable || responding.has(socket)) {
      socket.destroy();
      return;
    }
    // No request was parsed, but the bytes it began with say whether it is a HEAD (answered without a body).
    const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    answerEarly(socket, errorResponse(clientErrorOf(error, limits), randomUUID()), undefined, head);
  });
  return server;
}
