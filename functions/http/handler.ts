import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type * as z from '../shared/zod.js';
import { config } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { isConsoleRouteKey, routeFor, type AnyRoute, type AnyRouteDefinition } from '../routes.js';
import { checkCsrf } from './console-session.js';
import { requestFingerprint } from './fingerprint.js';
import type { IdempotentExecutor } from './idempotency.js';
import { errorEnvelope, flushMetrics, requestLimits, requestLogging } from './middlewares.js';
import { jsonResponse, validationError } from './responses.js';
import type { ApiEvent, ApiResponse, HttpResult } from './types.js';

export interface RequestSchemas<P extends z.ZodMiniType, Q extends z.ZodMiniType, B extends z.ZodMiniType> {
  params?: P;
  query?: Q;
  body?: B;
}

interface ApiRequest<P, Q, B> {
  accountId: string;
  /** The console session's id, on console routes (sign-out ends it); undefined on API routes. */
  sessionId: string | undefined;
  requestId: string;
  params: P;
  query: Q;
  body: B;
  /** The request's Idempotency-Key, on routes that take one: creations derive their ids from it. */
  idempotencyKey?: string;
}

const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Printable ASCII, 1..255 characters; the OpenAPI document states the same pattern. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** A route that takes Idempotency-Key (route table) must be composed with the idempotent executor. */
type IdempotencyDeps<H extends AnyRoute['handler']> = Extract<AnyRoute, { handler: H }>['idempotency'] extends 'accepted' | 'required'
  ? { idempotent: IdempotentExecutor }
  : object;

/**
 * Builds a route's Lambda handler: authenticate, enforce the request limit, parse with zod, run the use case (through
 * idempotency when the route table says so), shape the JSON response. Handlers stay thin.
 * `deps` composes what the use case calls (functions/composition); it is built at the first
 * request, once per process, from parts that are each built once.
 */
export function httpHandler<
  H extends AnyRoute['handler'],
  D extends IdempotencyDeps<H>,
  P extends z.ZodMiniType,
  Q extends z.ZodMiniType,
  B extends z.ZodMiniType,
>(
  handlerName: H,
  schemas: RequestSchemas<P, Q, B>,
  deps: () => D,
  action: (request: ApiRequest<z.infer<P>, z.infer<Q>, z.infer<B>>, deps: D) => Promise<HttpResult>,
) {
  const route: AnyRouteDefinition = routeFor(handlerName);
  let composed: D | undefined;

  const lambda = middy<ApiEvent, ApiResponse, Error, Context>()
    .use(requestLogging())
    .use(flushMetrics())
    .use(requestLimits())
    .use(errorEnvelope())
    .handler(async (event, context) => {
      const requestId = event.requestContext.requestId;
      const { accountId, sessionId } = principalOf(event);

      // SPEC: a deployment that cannot run production scanners says so on every route that needs uploads.
      if (route.uploads && !config().UPLOADS_ENABLED) {
        throw new ApiError('uploads_unavailable', 'This deployment cannot run production scanners; one-off analyses of trusted source URLs remain available.');
      }
      if (route.maxBodyBytes !== undefined && bodyBytes(event) > route.maxBodyBytes) {
        throw new ApiError('payload_too_large', `The body is over the ${route.maxBodyBytes / 1024} KiB this endpoint accepts.`, 'body');
      }
      const rawBody = schemas.body ? readJsonBody(event) : undefined;
      const request = {
        accountId,
        sessionId,
        requestId,
        params: parse(schemas.params, event.pathParameters ?? {}, 'path'),
        query: parse(schemas.query, event.queryStringParameters ?? {}, 'query'),
        body: parse(schemas.body, rawBody),
      };
      const used = (composed ??= deps());
      const key = idempotencyKeyOf(event, route);
      const execute = () => action(key === undefined ? request : { ...request, idempotencyKey: key }, used);
      if (!key) return toResponse(await execute(), requestId);
      const { result, replayed } = await (used as { idempotent: IdempotentExecutor }).idempotent(
        { accountId, idempotencyKey: key, fingerprint: requestFingerprint(route.method, event.rawPath, rawBody), requestId, execute },
        context,
      );
      return toResponse(result, requestId, replayed ? { 'idempotent-replayed': 'true' } : {});
    });
  // The OpenAPI generator (functions/api/openapi.ts) documents exactly the schemas that validate the requests.
  return Object.assign(lambda, { requestSchemas: schemas });
}

/**
 * The caller, as the authorizer found it. A console request (a console route, or the console's twin
 * of an API route: the route key says which) is a session's, and a change must pass the CSRF check;
 * any other is an API key's. The authorizer reads only the credential the route key calls for, so
 * neither ever stands for the other.
 */
function principalOf(event: ApiEvent): { accountId: string; sessionId: string | undefined } {
  const context = event.requestContext.authorizer?.lambda;
  const consoleRequest = isConsoleRouteKey(event.routeKey);
  const accountId = context?.accountId;
  if (!accountId || consoleRequest !== (context.sessionId !== undefined)) {
    throw new ApiError('unauthorized', context?.authError ?? (consoleRequest ? 'Sign in to the console first.' : 'Missing API key.'));
  }
  if (consoleRequest) checkCsrf(event);
  return { accountId, sessionId: context.sessionId };
}

function toResponse(result: HttpResult, requestId: string, headers: Record<string, string> = {}): ApiResponse {
  const response = jsonResponse(result.status, result.body, requestId, headers);
  return result.cookies ? { ...response, cookies: result.cookies } : response;
}

function parse<S extends z.ZodMiniType>(schema: S | undefined, input: unknown, location?: 'query' | 'path'): z.infer<S> {
  if (!schema) return undefined as z.infer<S>;
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error, location);
  return result.data;
}

const bodyBytes = (event: ApiEvent): number => (event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0);

function readJsonBody(event: ApiEvent): unknown {
  // Bodies are read as JSON whatever content-type says (curl -d sends form encoding by default).
  const text = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (!text) throw new ApiError('validation_failed', 'A JSON body is required.', 'body');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('validation_failed', 'The body is not valid JSON.', 'body');
  }
}

function idempotencyKeyOf(event: ApiEvent, route: AnyRouteDefinition): string | undefined {
  const key = event.headers[IDEMPOTENCY_HEADER];
  if (route.idempotency === 'none' || route.idempotency === 'ignored') return undefined;
  if (key === undefined) {
    if (route.idempotency === 'required') {
      throw new ApiError('idempotency_key_required', 'This endpoint requires an Idempotency-Key header.', 'Idempotency-Key');
    }
    return undefined;
  }
  if (!idempotencyKeyPattern.test(key)) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', 'Idempotency-Key');
  }
  return key;
}
