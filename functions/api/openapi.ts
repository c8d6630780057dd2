/**
 * Builds the OpenAPI 3.1 document from the route table (functions/routes.ts), the request schemas
 * each route's handler validates with, and the response schemas (functions/resources/components.ts).
 * Nothing here lists a route or a field: a route, parameter or field appears in the document
 * because the code that serves it has it. `npm run openapi` writes the result to openapi.json.
 *
 * JSON Schema comes from zod's own z.toJSONSchema: requests as their input side (a query's
 * `limit` is a string of digits), responses as their output side.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from '../shared/zod.js';
import { errorCatalog, type ErrorCode } from '../domain/errors.js';
import { idempotencyKeyPattern, type RequestSchemas } from '../http/handler.js';
import { RATE_LIMIT_HEADERS, REQUEST_ID_HEADER } from '../http/responses.js';
import { routeKey, routes, type Route, type RouteDefinition } from '../routes.js';
import { resourceSchemas, type ResourceName } from '../resources/components.js';
import { errorDescriptions, operations, tags, type Operation } from './operations.js';
import { resourceExamples } from './openapi-examples.js';

type Json = Record<string, unknown>;
type Schemas = RequestSchemas<z.ZodMiniType, z.ZodMiniType, z.ZodMiniType>;

const OPENAPI_VERSION = '3.1.0';
const functionsDir = join(import.meta.dirname, '..');
const componentRef = (name: string) => `#/components/schemas/${name}`;

type OverrideContext = { zodSchema: z.core.$ZodType; jsonSchema: z.core.JSONSchema.BaseSchema };

/** Tidies zod's output: no regex beside a date-time format, no safe-integer bounds that only say "an integer". */
function tidy({ jsonSchema }: OverrideContext): void {
  if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}

/**
 * The input side of `z.pipe(z.string().check(z.trim()), maxChars(600))` is only the trimmed
 * string: the length limit is on the pipe's output. A client must respect it all the same, so it
 * is stated here.
 */
function tidyInput(context: OverrideContext): void {
  tidy(context);
  const { zodSchema, jsonSchema } = context;
  if (zodSchema instanceof z.ZodMiniPipe && jsonSchema.type === 'string' && jsonSchema.maxLength === undefined) {
    const maxLength = z.globalRegistry.get(zodSchema.def.out)?.maxLength;
    if (typeof maxLength === 'number') jsonSchema.maxLength = maxLength;
  }
}

function inputSchema(schema: z.ZodMiniType): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override: tidyInput }) as Json;
  return json;
}

/** components/schemas: every response resource, referencing each other by name. */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(resourceSchemas)) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', override: tidy, uri: componentRef });
  if ('__shared' in schemas) throw new Error('A response schema is shared without a name: give it one in resourceSchemas.');
  const examples: Partial<Record<ResourceName, unknown>> = resourceExamples;
  return Object.fromEntries(
    Object.keys(resourceSchemas).map((name) => {
      const { $schema: _dialect, $id: _id, ...schema } = schemas[name] as Json;
      const example = examples[name as ResourceName];
      return [name, example === undefined ? schema : { ...schema, examples: [example] }];
    }),
  );
}

/** The handler module behind a route, as CDK bundles it and the local host loads it. */
async function requestSchemasOf(route: Route): Promise<Schemas> {
  const module = (await import(pathToFileURL(join(functionsDir, `${route.handler}.ts`)).href)) as { handler: { requestSchemas?: Schemas } };
  const schemas = module.handler.requestSchemas;
  if (!schemas) throw new Error(`${route.handler} is not built with httpHandler: the document cannot know its request schemas.`);
  return schemas;
}

const idKinds: Record<string, string> = { scanner_id: 'scn_', upload_id: 'upl_', run_id: 'run_', analysis_id: 'ana_', batch_id: 'bat_', endpoint_id: 'whe_' };

const parameterDescriptions: Record<string, string> = {
  limit: 'Page size.',
  cursor: 'The `next_cursor` of the previous page (opaque; bound to the account).',
  item_limit: 'Items per page.',
  item_cursor: 'The numeric `items_next_cursor` of the previous page.',
  created_after: 'Only what was created after this instant.',
};

/** Path or query parameters from the handler's object schema (input side: what the client sends). */
function parameters(schema: z.ZodMiniType | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  if (!(schema instanceof z.ZodMiniObject)) throw new Error(`${location} schemas are objects`);
  const json = inputSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const field = schema.shape[name] as z.ZodMiniType;
    // Query strings carry text: a default of the parsed value reads as the string a client would send.
    const fallback = field instanceof z.ZodMiniDefault ? { default: String(field.def.defaultValue) } : {};
    const description = location === 'path' ? `The ${idKinds[name] ?? ''}… identifier.` : parameterDescriptions[name];
    return {
      name,
      in: location,
      required: location === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: { ...property, ...fallback },
    };
  });
}

/** The error codes a route can answer: the common ones its route-table entry implies, then its use case's own. */
function errorCodesOf(route: RouteDefinition, schemas: Schemas, operation: Operation): ErrorCode[] {
  const codes: ErrorCode[] = ['unauthorized'];
  const idempotent = route.idempotency === 'accepted' || route.idempotency === 'required';
  if (schemas.params || schemas.query || schemas.body || idempotent) codes.push('validation_failed');
  if (schemas.params) codes.push('not_found');
  if (route.cursors) codes.push('invalid_cursor');
  if (schemas.body || route.maxBodyBytes !== undefined) codes.push('payload_too_large');
  if (route.idempotency === 'required') codes.push('idempotency_key_required');
  if (idempotent) codes.push('idempotency_key_reused', 'idempotency_request_in_progress');
  if (route.uploads) codes.push('uploads_unavailable');
  // Any request may be throttled (the local host's per-client connection cap; API Gateway's on AWS),
  // cut when it arrives too slowly, or refused for oversized headers, before any route sees it.
  codes.push(...(operation.errors ?? []), 'request_timeout', 'request_header_fields_too_large', 'rate_limited', 'internal_error');
  return [...new Set(codes)];
}

const requestIdHeader = { [REQUEST_ID_HEADER]: { $ref: '#/components/headers/RequestId' } };
/** The account's request bucket, on every answer of an authenticated request (functions/http/middlewares.ts requestLimits). */
const rateLimitHeaders = {
  [RATE_LIMIT_HEADERS.limit]: { $ref: '#/components/headers/RateLimitLimit' },
  [RATE_LIMIT_HEADERS.remaining]: { $ref: '#/components/headers/RateLimitRemaining' },
  [RATE_LIMIT_HEADERS.reset]: { $ref: '#/components/headers/RateLimitReset' },
};

/** The envelope with its `code` narrowed to `codes`, one example per code. */
function errorResponse(codes: readonly ErrorCode[]): Json {
  return {
    description: codes.map((code) => `\`${code}\`: ${errorDescriptions[code]}.`).join(' '),
    headers: codes.includes('rate_limited')
      ? { ...requestIdHeader, [RATE_LIMIT_HEADERS.retryAfter]: { $ref: '#/components/headers/RetryAfter' }, ...rateLimitHeaders }
      : requestIdHeader,
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: componentRef('ErrorEnvelope') },
            { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
          ],
        },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

/** `not_found` -> `NotFound`: the name of the shared response of a status a route answers with one code only. */
const responseName = (code: ErrorCode) => code.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());

function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorCatalog[code].status, [...(byStatus.get(errorCatalog[code].status) ?? []), code]);
  return byStatus;
}

/** The codes some route answers alone at their status: each has a shared response (components/responses). */
const loneCodes = (codes: readonly ErrorCode[]): ErrorCode[] => [...codesByStatus(codes).values()].flatMap((group) => (group.length === 1 ? group : []));

/** One response per status; where a status has a single code, a reference to the shared response of that code. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, Json> {
  return Object.fromEntries(
    [...codesByStatus(codes)].map(([status, statusCodes]) => {
      const [only] = statusCodes;
      return [String(status), statusCodes.length === 1 && only ? { $ref: `#/components/responses/${responseName(only)}` } : errorResponse(statusCodes)];
    }),
  );
}

/** Every code some route answers, once, by status then name. */
const errorCodesByStatus = (codes: Iterable<ErrorCode>): ErrorCode[] =>
  [...new Set(codes)].sort((a, b) => errorCatalog[a].status - errorCatalog[b].status || a.localeCompare(b));

/** components/examples: an error envelope of `code`. */
function errorExample(code: ErrorCode): Json {
  const text = errorDescriptions[code];
  const message = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  return { summary: text, value: { error: { type: errorCatalog[code].type, code, message, request_id: 'c0a8012e-6f1b-4b52-9c1d-2f7e3a9b8d41' } } };
}

function operationObject(route: Route, schemas: Schemas): { operation: Json; errorCodes: ErrorCode[] } {
  const operation: Operation = operations[routeKey(route) as keyof typeof operations];
  const idempotent = route.idempotency === 'accepted' || route.idempotency === 'required';
  const { status, schema, description } = operation.response;
  const errorCodes = errorCodesOf(route, schemas, operation);
  const object = {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    parameters: [
      ...parameters(schemas.params, 'path'),
      ...parameters(schemas.query, 'query'),
      ...(idempotent ? [{ $ref: `#/components/parameters/${route.idempotency === 'required' ? 'IdempotencyKeyRequired' : 'IdempotencyKey'}` }] : []),
    ],
    ...(schemas.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inputSchema(schemas.body), ...(operation.example ? { example: operation.example } : {}) } },
          },
        }
      : {}),
    responses: {
      [String(status)]: {
        description,
        headers: {
          ...requestIdHeader,
          ...rateLimitHeaders,
          ...(idempotent ? { 'idempotent-replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
        },
        content: { 'application/json': { schema: { $ref: componentRef(schema) } } },
      },
      ...errorResponses(errorCodes),
    },
  };
  return { operation: object, errorCodes };
}

const description = `Analyses recorded video and audio the caller is authorized to process and returns typed, timestamped answers.

**Authentication.** Every request sends \`Authorization: Bearer <API key>\` (\`sk_live_…\` or \`sk_test_…\`) from a server; a missing, invalid or revoked key answers 401.

**Errors.** Every error is \`{"error": {"type", "code", "message", "param"?, "request_id"}}\`; each operation lists the codes it can answer per status. Unknown routes (and known paths with another method) answer 404 \`not_found\`. Retry 429, 503 and network failures with bounded exponential backoff; do not retry validation or authorization errors until the request changes.

**Request limits.** Each account has a token bucket by plan (or by contract): every answer to an authenticated request carries \`x-ratelimit-limit\` (the bucket's size), \`x-ratelimit-remaining\` and \`x-ratelimit-reset\` (Unix seconds when it is full again); an empty bucket answers 429 \`rate_limited\` with \`retry-after\` in seconds.

**Idempotency.** Where an operation takes \`Idempotency-Key\`, a retry with the same key and request replays the first answer (\`idempotent-replayed: true\`); the same key with another request answers 409 \`idempotency_key_reused\`.

**Lists.** \`{"object": "list", "data": [...], "next_cursor"}\`: send \`next_cursor\` back as \`cursor\` until it is null. Batch detail pages items with the numeric \`item_cursor\`.

**Polling.** Poll runs and analyses every 5 to 10 seconds with jitter until they are completed or failed.`;

export type OpenApiDocument = Json & { openapi: string; paths: Record<string, Record<string, Json>> };

/** The whole document; deterministic, so the committed openapi.json can be compared with a fresh build. */
export async function buildOpenApiDocument(version: string): Promise<OpenApiDocument> {
  const paths: Record<string, Record<string, Json>> = {};
  const answered: ErrorCode[] = [];
  const alone: ErrorCode[] = [];
  for (const route of routes) {
    const { operation, errorCodes } = operationObject(route, await requestSchemasOf(route));
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
    answered.push(...errorCodes);
    alone.push(...loneCodes(errorCodes));
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Media Scanner Service API',
      version,
      description,
      // Private software: an SPDX LicenseRef, not an open-source licence.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: 'http://127.0.0.1:4000', description: 'Local host (`npm start`)' },
      {
        url: 'https://{api_id}.execute-api.{region}.amazonaws.com',
        description: 'A deployed stack (`cdk deploy`)',
        variables: { api_id: { default: 'api-id', description: 'The HTTP API id' }, region: { default: 'us-east-1' } },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(tags).map(([name, tagDescription]) => ({ name, description: tagDescription })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'API key (sk_live_ or sk_test_ + 40 base62 characters)' },
      },
      parameters: {
        IdempotencyKey: idempotencyKeyParameter(false),
        IdempotencyKeyRequired: idempotencyKeyParameter(true),
      },
      headers: {
        RequestId: { description: 'The request id; equal to `error.request_id` on errors.', required: true, schema: { type: 'string' } },
        IdempotentReplayed: {
          description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', enum: ['true'] },
        },
        // Not `required`: a 429 of the edge (API Gateway's stage throttle, the local host's connection cap) has no account.
        RateLimitLimit: {
          description: "The account's request bucket: how many requests it holds (the plan's burst).",
          schema: { type: 'integer', minimum: 1 },
        },
        RateLimitRemaining: { description: 'Requests that may follow at once.', schema: { type: 'integer', minimum: 0 } },
        RateLimitReset: { description: 'Unix time (seconds) at which the bucket is full again.', schema: { type: 'integer' } },
        RetryAfter: {
          description: "Seconds to wait before the account's next request is admitted (429 `rate_limited` of the account's request limit).",
          schema: { type: 'integer', minimum: 1 },
        },
      },
      responses: Object.fromEntries(errorCodesByStatus(alone).map((code) => [responseName(code), errorResponse([code])])),
      examples: Object.fromEntries(errorCodesByStatus(answered).map((code) => [code, errorExample(code)])),
      schemas: componentSchemas(),
    },
  };
}

function idempotencyKeyParameter(required: boolean): Json {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required,
    description: required
      ? 'Required. Retry with the same key and the same request to get the first answer back.'
      : 'Optional. Retry with the same key and the same request to get the first answer back.',
    schema: { type: 'string', pattern: idempotencyKeyPattern.source, examples: ['0f8e2b7c-3d4a-4c1e-9b2f-6a5d8e7c1b30'] },
  };
}
