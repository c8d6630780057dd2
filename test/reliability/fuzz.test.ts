/**
 * Fuzzing driven by the request schemas (functions/resources via the OpenAPI document built from
 * the handlers, api-model.ts): for every route of the route table, fast-check makes requests a
 * client could send, valid ones (with real ids of the fuzzing account's own resources) and
 * mutated ones: wrong types, nulls, huge and unusual strings, extra and missing fields, deep
 * nesting, invalid JSON, non-JSON bodies, wrong content types, odd path and query values, broken
 * Idempotency-Keys and credentials, other methods. Every answer must be below 500, JSON, and, when
 * an error, the envelope `{error: {type, code, message, request_id}}` with the same x-request-id;
 * every answer must be one the OpenAPI document promises. Afterwards the same host process still
 * serves a whole run. FUZZ_REQUESTS (default 3000) bounds the total, FUZZ_SEED replays a run.
 */
import { Agent } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectEnvelope, rawRequest, type ApiResponse } from '../helpers/api.js';
import { OpenApiContract } from '../helpers/openapi-contract.js';
import { deeplyNestedJson, mutatedValue, nastyStrings, validValue, type JsonSchema } from '../helpers/schema-arbitraries.js';
import { startRun, toneWav, uploadFile, waitForCompleted } from '../helpers/runs.js';
import { createScanner } from '../helpers/api.js';
import { apiModel, propertyNames, substitute, type RouteModel } from './api-model.js';
import { idFactories, newTenant, Resources } from './resources.js';

const { document, models } = await apiModel();
const contract = new OpenApiContract(document);
const TOTAL_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Each route's share, and a time bound per route so the whole stays within a few minutes. */
const RUNS_PER_ROUTE = Math.ceil(TOTAL_REQUESTS / models.length);
const TIME_PER_ROUTE_MS = 45_000;

let fuzzer: Resources;
/** Real ids of the fuzzing account's own resources, by kind. */
let ids: Record<string, string> = {};
/**
 * A connection per request: a kept-alive socket the server has since closed would fail the next
 * request with a reset that is the client's doing, not the host's (every answer then is the host's).
 */
const agent = new Agent({ keepAlive: false, maxSockets: 8 });
const statuses = new Map<string, number>();

beforeAll(async () => {
  // Few credits: valid run and analysis submissions are accepted a couple of times, then answered 402.
  fuzzer = new Resources(await newTenant(4));
  const kinds = [...new Set(models.flatMap((model) => [...model.pathParameters, ...propertyNames(model.body)]))].filter((name) => name in idFactories);
  await Promise.all(kinds.map((name) => fuzzer.id(name)));
  ids = await fuzzer.all();
});

afterAll(async () => {
  agent.destroy();
  await fuzzer?.close();
  const summary = [...statuses].sort(([x], [y]) => x.localeCompare(y)).map(([key, count]) => `${key}: ${count}`);
  console.log(`Fuzzing: ${[...statuses.values()].reduce((sum, count) => sum + count, 0)} requests\n  ${summary.join('\n  ')}`);
});

// ---------------------------------------------------------------------------------------------
// Requests

interface FuzzRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Percent-encodes what an HTTP client cannot send raw; keeps `/`, `%`, `?`, `#` and `..` raw. */
function rawSafe(value: string): string {
  return [...value].map((char) => (/[\x21-\x7e]/.test(char) ? char : safeComponent(char))).join('');
}

/** encodeURIComponent, but a lone surrogate becomes the bytes a sloppy client would send. */
function safeComponent(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value].map((char) => (/[\uD800-\uDFFF]/.test(char) ? '%ED%A0%80' : encodeURIComponent(char))).join('');
  }
}

/** Header values as a client can send them: Latin-1, no control characters. */
const headerSafe = (value: string): string => value.replace(/[^\x20-\x7e\x80-\xff]/g, '?');

const otherIds = (): string[] => Object.values(ids);

function pathValue(name: string): fc.Arbitrary<string> {
  const real = ids[name];
  const value = fc.oneof(
    { weight: real ? 6 : 0, arbitrary: fc.constant(real ?? '') },
    { weight: 2, arbitrary: fc.constantFrom(...nastyStrings.filter(Boolean)) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom(...otherIds(), 'scn_0193a4b1c2d37e8f9a0b1c2d3e4f5a6b') },
    { weight: 1, arbitrary: fc.constantFrom(300, 5_000, 20_000).map((length) => 'x'.repeat(length)) },
  );
  return fc
    .tuple(value, fc.constantFrom('encoded', 'encoded', 'encoded', 'raw'))
    .map(([text, how]) => (how === 'encoded' ? safeComponent(text) : rawSafe(text)));
}

const queryText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function queryArbitrary(model: RouteModel): fc.Arbitrary<string> {
  const known = model.query.map((parameter) =>
    fc.tuple(
      fc.constant(parameter.name),
      fc.oneof(
        { weight: 3, arbitrary: validValue(parameter.schema).map(queryText) },
        { weight: 1, arbitrary: fc.constantFrom(...(parameter.name in ids ? [ids[parameter.name] ?? ''] : ['']), ...otherIds()) },
        { weight: 2, arbitrary: fc.constantFrom(...nastyStrings, '-1', '0', '101', '1.5', '99999999999999999999', 'x'.repeat(5_000)) },
      ),
    ),
  );
  const unknown = fc.tuple(fc.constantFrom('foo', 'limit[]', 'cursor', '__proto__', 'account_id', ''), fc.constantFrom(...nastyStrings));
  const pair = known.length ? fc.oneof({ weight: 4, arbitrary: fc.oneof(...known) }, { weight: 1, arbitrary: unknown }) : unknown;
  return fc.tuple(fc.array(pair, { maxLength: 4 }), fc.constantFrom('encoded', 'encoded', 'raw')).map(([pairs, how]) => {
    if (!pairs.length) return '';
    const text = how === 'encoded' ? new URLSearchParams(pairs).toString() : pairs.map(([name, value]) => `${rawSafe(name)}=${rawSafe(value)}`).join('&');
    return `?${text}`;
  });
}

const invalidJson = fc.constantFrom(
  '{',
  '{"a":',
  '[',
  'nul',
  '{"a":1,}',
  "{'a':1}",
  'NaN',
  '\uFEFF{}',
  '{"a":1}{"b":2}',
  '"',
  '{"a":"\\x"}',
  '{"a":"\\ud800"}',
  '{"__proto__":{"polluted":1}}',
  ' ',
  '\u0000',
);

function bodyArbitrary(model: RouteModel): fc.Arbitrary<string | Buffer | undefined> {
  const schema: JsonSchema = model.body ?? { type: 'object', additionalProperties: false };
  // Real ids in place of the generated ones, half of the time: requests that get past the lookups.
  const withRealIds = (value: unknown, real: boolean) => (real ? substitute(value, ids) : value);
  const json = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value));
  return fc.oneof(
    { weight: model.body ? 4 : 1, arbitrary: fc.tuple(validValue(schema), fc.boolean()).map(([value, real]) => json(withRealIds(value, real))) },
    { weight: model.body ? 6 : 1, arbitrary: fc.tuple(mutatedValue(schema), fc.boolean()).map(([value, real]) => json(withRealIds(value, real))) },
    { weight: 1, arbitrary: invalidJson },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(1_000, 20_000, 200_000), fc.constantFrom('array' as const, 'object' as const, 'mixed' as const))
        .map(([depth, kind]) => deeplyNestedJson(depth, kind)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    // Over 512 KiB (a batch's limit) and over 10 MB (every route's): 413 before anything reads it.
    { weight: 1, arbitrary: fc.constantFrom(600 * 1024, 600 * 1024, 600 * 1024, 11 * 1024 * 1024).map((size) => JSON.stringify({ filler: 'x'.repeat(size) })) },
    { weight: model.body ? 0 : 3, arbitrary: fc.constant(undefined) },
  );
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/xml',
      '',
      '*/*',
      'application/json;;;',
      'Ã¤',
    ),
  },
);

function headersArbitrary(model: RouteModel): fc.Arbitrary<Record<string, string>> {
  const key = inject('apiKey');
  const authorization = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${fuzzer.tenant.apiKey}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'Bearer ',
        'Bearer sk_live_',
        `Bearer ${fuzzer.tenant.apiKey}x`,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        `bearer ${key.toUpperCase()}`,
        `Bearer ${'A'.repeat(10_000)}`,
        'Bearer sk_live_ÿÿÿ',
        `Bearer  ${fuzzer.tenant.apiKey}`,
      ),
    },
  );
  const takesKey = model.route.idempotency === 'accepted' || model.route.idempotency === 'required';
  const idempotencyKey = fc.oneof(
    { weight: takesKey ? 4 : 1, arbitrary: fc.constant(undefined) },
    { weight: takesKey ? 4 : 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(256), 'ÿkey', 'a b', '🔑', ...nastyStrings.slice(0, 10)) },
  );
  return fc
    .record({
      authorization,
      idempotencyKey,
      contentType,
      extra: fc.option(
        fc.constantFrom<[string, string]>(
          ['accept', 'text/html'],
          ['content-encoding', 'gzip'],
          ['x-forwarded-for', '10.0.0.1'],
          ['x-request-id', 'spoofed'],
          ['expect', '100-continue'],
        ),
        { nil: undefined },
      ),
    })
    .map(({ authorization: auth, idempotencyKey: key, contentType: type, extra }) => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers.authorization = headerSafe(auth);
      if (key !== undefined) headers['idempotency-key'] = headerSafe(key);
      if (type !== undefined) headers['content-type'] = headerSafe(type);
      if (extra) headers[extra[0]] = extra[1];
      return headers;
    });
}

function requestArbitrary(model: RouteModel): fc.Arbitrary<FuzzRequest> {
  const path = fc.tuple(...model.pathParameters.map(pathValue)).map((values) => {
    let index = 0;
    return model.route.path.replace(/\{[a-z_]+\}/g, () => values[index++] ?? '');
  });
  // Mostly the route's own method; sometimes another (the catch-all's 404 with `allow`).
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(model.route.method as string) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'FOO') },
  );
  return fc
    .record({ method, path, query: queryArbitrary(model), body: bodyArbitrary(model), headers: headersArbitrary(model) })
    .map(({ method: m, path: p, query, body, headers }) => {
      const request: FuzzRequest = { method: m, target: `${p}${query}`, headers, ...(body !== undefined ? { body } : {}) };
      // A counterexample is reported by this (truncated) description, not as a multi-megabyte dump.
      return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
    });
}

// ---------------------------------------------------------------------------------------------
// What every answer must be

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.target.slice(0, 300)} headers=${JSON.stringify(request.headers).slice(0, 300)} body=${request.body === undefined ? '-' : `${request.body.length} bytes: ${request.body.toString().slice(0, 300)}`}`;

async function send(request: FuzzRequest): Promise<ApiResponse<unknown>> {
  try {
    // Framed by Content-Length: Node sends a GET's body unframed otherwise (no chunked encoding for GET).
    const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    return await rawRequest(inject('baseUrl'), request.method, request.target, {
      headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      agent,
      timeoutMs: 60_000,
    });
  } catch (error) {
    throw new Error(`no answer (${(error as Error).message}) to ${describeRequest(request)}`);
  }
}

/** 408 request_timeout, 413 payload_too_large, 431 request_header_fields_too_large. */
const edgeStatuses = [408, 413, 431];
/** Any other method is refused by the HTTP parser itself: 400 "not valid HTTP/1.1", in the envelope. */
const knownMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

function check(model: RouteModel, request: FuzzRequest, response: ApiResponse<unknown>): void {
  const context = `${describeRequest(request)}\n-> ${response.status} ${response.text.slice(0, 500)}`;
  const key = `${model.key} -> ${response.status}${response.status >= 400 ? ` ${(response.body as { error?: { code?: string } } | undefined)?.error?.code ?? '?'}` : ''}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  expect(response.status, context).toBeGreaterThanOrEqual(200);
  expect(response.status, context).toBeLessThan(500);
  if (request.method === 'HEAD') return;
  expect(response.headers.get('x-request-id'), context).toBeTruthy();
  if (response.status >= 400) expectEnvelope(response);
  else expect(response.headers.get('content-type'), context).toMatch(/^application\/json/);
  // The answers of the host's edge (any route, before a handler: API Gateway's own on AWS) are not
  // listed per operation; they must be the envelope all the same (checked above).
  if (edgeStatuses.includes(response.status) || !knownMethods.includes(request.method)) return;
  try {
    contract.check({
      method: request.method,
      url: `http://host${request.target.split('?')[0]}`,
      status: response.status,
      headers: response.headers,
      text: response.text,
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}\nrequest: ${describeRequest(request)}`);
  }
}

describe.concurrent('every route, fuzzed from its schemas', () => {
  test.for(models.map((model) => [model.key, model] as const))('%s', async ([, model]) => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(model), async (request) => check(model, request, await send(request))),
      { numRuns: RUNS_PER_ROUTE, ...(SEED !== undefined ? { seed: SEED } : {}), interruptAfterTimeLimit: TIME_PER_ROUTE_MS, endOnFailure: true },
    );
  });
});

// Found by the fuzzing above: a HEAD answered early (413 for a declared 11 MB body, 431 for a 20 KB
// path) carried a body, which the client's parser took for garbage after `Connection: close`, and
// the answer was lost. Kept as fixed cases.
const early = [
  { status: 413, request: (method: string) => ({ target: '/v1/account', body: 'x'.repeat(11 * 1024 * 1024), method }) },
  { status: 431, request: (method: string) => ({ target: `/v1/account/${'x'.repeat(20_000)}`, method }) },
];
test.for(['HEAD', 'GET', 'POST'].flatMap((method) => early.map(({ status, request }) => [method, status, request] as const)))(
  'an early answer to %s (%i) reaches the client',
  async ([method, status, request]) => {
    const response = await send({ ...request(method), headers: { authorization: `Bearer ${fuzzer.tenant.apiKey}`, 'content-type': 'application/json' } });
    expect(response.status).toBe(status);
    if (method !== 'HEAD') expectEnvelope(response);
    else expect(response.text).toBe('');
  },
);

describe('afterwards', () => {
  test('the same host process is healthy: it answers, runs work end to end, and logged no crash', async () => {
    expect(() => process.kill(inject('hostPid'), 0), 'the host process is gone').not.toThrow();
    const client = fuzzer.tenant.client;
    const account = await client.get('/v1/account');
    expect(account.status, account.text).toBe(200);
    const healthy = new Resources(await newTenant(5));
    const upload = await uploadFile(healthy.tenant.client, await toneWav(5));
    const scanner = await createScanner(
      healthy.tenant.client,
      { name: 'after the fuzz', type: 'summarizer', instructions: 'Summarize the recording' },
      { 'idempotency-key': randomUUID() },
    );
    await waitForCompleted(healthy.tenant.client, (await startRun(healthy.tenant.client, scanner.scanner_id, { upload_id: upload.upload_id })).run_id);
    const log = readFileSync(inject('hostLog'), 'utf8');
    expect(log, 'the host log shows a crash').not.toMatch(/uncaught|unhandled|FATAL|heap out of memory|RangeError: Maximum call stack/i);
  });
});
