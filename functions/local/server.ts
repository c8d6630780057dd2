import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { ApiError } from '../domain/errors.js';
import { errorResponse } from '../http/responses.js';
import { matchRoute, notFoundHandler } from '../routes.js';
import { handler as authorize } from '../authorizer/handler.js';
import { lambdaContext } from './lambda-context.js';
import { inUnit } from './aws-calls/recorder.js';
import { units } from './aws-calls/vocabulary.js';
import type { ApiEvent, ApiResponse } from '../http/types.js';

/** API Gateway HTTP APIs refuse request bodies over 10 MB; the local host does the same. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
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

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
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
    headers: headersOf(req),
    ...(url.search ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '', userAgent: req.headers['user-agent'] ?? '' },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: body.toString('utf8'), isBase64Encoded: false } : { isBase64Encoded: false }),
  };
}

async function dispatch(req: IncomingMessage, baseUrl: string): Promise<ApiResponse> {
  const requestId = randomUUID();
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      // The rest of the body is never read, so this connection cannot carry another request.
      const response = errorResponse(new ApiError('payload_too_large', 'Request bodies are limited to 10 MB.'), requestId);
      response.headers.connection = 'close';
      return response;
    }
    throw error;
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', baseUrl);
  } catch {
    return errorResponse(new ApiError('not_found', 'No route for this request target.'), requestId);
  }
  const method = req.method ?? 'GET';
  const match = matchRoute(method, url.pathname);
  if (match.kind !== 'route') {
    const notFound = await loadHandler(notFoundHandler);
    return inUnit(units.fallback, () => notFound(toEvent(req, url, body, requestId, '$default'), lambdaContext(notFoundHandler, requestId)));
  }

  const routeKey = `${match.route.method} ${match.route.path}`;
  const event = toEvent(req, url, body, requestId, routeKey);
  const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${method}${url.pathname}`,
    identitySource: [],
    routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    cookies: [],
    headers: event.headers,
    ...(event.queryStringParameters ? { queryStringParameters: event.queryStringParameters } : {}),
    requestContext: event.requestContext,
    pathParameters: match.pathParameters,
  };
  const auth = await inUnit(units.authorizer, () => authorize(authorizerEvent));
  const routeEvent: ApiEvent = {
    ...event,
    pathParameters: match.pathParameters,
    requestContext: { ...event.requestContext, authorizer: { lambda: auth.context } },
  };
  const handler = await loadHandler(match.route.handler);
  return inUnit(units.route(routeKey), () => handler(routeEvent, lambdaContext(match.route.handler, requestId)));
}

function send(res: ServerResponse, response: ApiResponse): void {
  res.writeHead(response.statusCode, { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
  res.end(response.body);
  if (response.headers.connection === 'close') res.once('finish', () => res.socket?.destroy());
}

/** node:http on loopback, dispatching from the route table exactly as API Gateway would. */
export function createApiServer(): Server {
  const server = createServer((req, res) => {
    const address = server.address();
    const baseUrl = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;
    dispatch(req, baseUrl)
      .then((response) => send(res, response))
      .catch((error: unknown) => {
        // Handlers already answer in the envelope; this is the host itself failing.
        console.error('local host: request failed', error);
        send(res, errorResponse(error, randomUUID()));
      });
  });
  return server;
}
