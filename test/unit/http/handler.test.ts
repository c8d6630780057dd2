/**
 * The route-handler builder, exercised through real route modules (GET and POST/PATCH scanners)
 * with the DynamoDB clients mocked: what an integrator sees over HTTP.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { Logger } from '@aws-lambda-powertools/logger';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context } from 'aws-lambda';
import { accountEntity } from '../../../functions/adapters/table/entities/account.js';
import { scannerEntity } from '../../../functions/adapters/table/entities/scanner.js';
import type { ApiEvent, ApiResponse } from '../../../functions/http/types.js';
import type { ScannerResource } from '../../../functions/resources/scanners/response.js';
import {
  ACCOUNT_ID,
  CURSOR_SECRET,
  CURSOR_SECRET_ARN,
  apiEvent,
  jsonBody,
  stubServiceEnv,
  testAccount,
  unitContext,
  type ErrorBody,
  type EventOptions,
} from '../../helpers/unit-fixtures.js';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResponse>;

const ddb = mockClient(DynamoDBDocumentClient);
const dynamo = mockClient(DynamoDBClient);
// The list route reads the cursor key from Secrets Manager (on AWS, through the host).
const secrets = mockClient(SecretsManagerClient);
secrets.on(GetSecretValueCommand, { SecretId: CURSOR_SECRET_ARN }).resolves({ SecretString: CURSOR_SECRET });

let getHandler: Handler;
let createHandler: Handler;
let updateHandler: Handler;
let listHandler: Handler;
let loggerError: MockInstance<Logger['error']>;

beforeAll(async () => {
  stubServiceEnv();
  getHandler = (await import('../../../functions/api/scanners/get.js')).handler;
  createHandler = (await import('../../../functions/api/scanners/create.js')).handler;
  updateHandler = (await import('../../../functions/api/scanners/update.js')).handler;
  listHandler = (await import('../../../functions/api/scanners/list.js')).handler;
  // The instance the freshly imported handlers log with: errors are logged there, never shown.
  const { logger } = await import('../../../functions/shared/logger.js');
  loggerError = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});

afterAll(() => {
  ddb.restore();
  dynamo.restore();
  secrets.restore();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const SCANNER_ID = 'scn_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
const accountKey = accountEntity.key({ accountId: ACCOUNT_ID });
const scanner = {
  scannerId: SCANNER_ID,
  version: 2,
  name: 'Highlights',
  instructions: 'Find the loud parts.',
  type: 'find_moments',
  min_seconds: 10,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
} as const;
const storedScanner = scannerEntity.item(ACCOUNT_ID, scanner);

beforeEach(() => {
  ddb.reset();
  dynamo.reset();
  loggerError.mockClear();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: accountKey }).resolves({ Item: accountEntity.item(testAccount()) });
  ddb.on(TransactWriteCommand).resolves({});
  dynamo.on(PutItemCommand).resolves({});
  dynamo.on(UpdateItemCommand).resolves({});
  dynamo.on(DeleteItemCommand).resolves({});
});

const getEvent = (options: EventOptions = {}) =>
  apiEvent({
    method: 'GET',
    path: `/v1/scanners/${SCANNER_ID}`,
    routeKey: 'GET /v1/scanners/{scanner_id}',
    pathParameters: { scanner_id: SCANNER_ID },
    ...options,
  });
const createEvent = (body: unknown, options: EventOptions = {}) =>
  apiEvent({ method: 'POST', path: '/v1/scanners', body: typeof body === 'string' ? body : JSON.stringify(body), ...options });
const validBody = { name: 'Highlights', instructions: 'Find the loud parts.', type: 'find_moments' };

/** Asserts the DESIGN §4 envelope and returns its error object. */
function expectEnvelope(response: ApiResponse, status: number, code: string, requestId = 'req-unit-0001'): ErrorBody['error'] {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.headers['x-request-id']).toBe(requestId);
  const body = jsonBody<ErrorBody>(response);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toBe(requestId);
  expect(typeof body.error.type).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

describe('authentication', () => {
  it('answers 401 in the envelope when the authorizer context is missing', async () => {
    const response = await getHandler(getEvent({ auth: null }), unitContext());
    const error = expectEnvelope(response, 401, 'unauthorized');
    expect(error.type).toBe('authentication_error');
    expect(ddb.calls()).toHaveLength(0);
  });

  it("passes on the authorizer's reason when there is no account", async () => {
    const response = await getHandler(getEvent({ auth: { authError: 'Send a valid API key.' } }), unitContext());
    expect(expectEnvelope(response, 401, 'unauthorized').message).toBe('Send a valid API key.');
  });
});

describe('request limits (the authorizer took the token)', () => {
  const bucket = { accountId: ACCOUNT_ID, rateLimit: 100, rateRemaining: 0, rateResetAt: 1_767_225_605 };

  it('answers 429 rate_limited with Retry-After and the bucket when it refused, before reading anything', async () => {
    const response = await getHandler(getEvent({ auth: { ...bucket, retryAfter: 2 } }), unitContext());
    expect(expectEnvelope(response, 429, 'rate_limited').type).toBe('rate_limit_error');
    expect(response.headers).toMatchObject({ 'retry-after': '2', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1767225605' });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('puts the bucket on a success and on other errors, without Retry-After', async () => {
    const missing = await getHandler(getEvent({ auth: { ...bucket, rateRemaining: 41 } }), unitContext());
    expectEnvelope(missing, 404, 'not_found');
    expect(missing.headers).toMatchObject({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '41' });
    expect(missing.headers['retry-after']).toBeUndefined();
    ddb.on(GetCommand, { Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` } }).resolves({ Item: storedScanner });
    const found = await getHandler(getEvent({ auth: { ...bucket, rateRemaining: 40 } }), unitContext());
    expect(found.statusCode).toBe(200);
    expect(found.headers).toMatchObject({ 'x-ratelimit-remaining': '40', 'x-ratelimit-reset': '1767225605' });
  });
});

describe('GET /v1/scanners/{scanner_id}', () => {
  it('answers 200 with the public shape, request id in header and nothing internal', async () => {
    ddb.on(GetCommand, { Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` } }).resolves({ Item: storedScanner });
    const response = await getHandler(getEvent({ requestId: 'req-abc' }), unitContext());
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('req-abc');
    expect(response.headers['content-type']).toBe('application/json');
    expect(jsonBody<ScannerResource>(response)).toEqual({
      object: 'scanner',
      scanner_id: SCANNER_ID,
      version: 2,
      name: 'Highlights',
      instructions: 'Find the loud parts.',
      type: 'find_moments',
      profile: null,
      max_observations: null,
      min_seconds: 10,
      max_seconds: null,
      output: null,
      metadata: {},
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    });
    expect(response.body).not.toMatch(/ACCT#|"PK"|"entity"|scannerId/);
  });

  it('answers 404 not_found for an unknown or foreign scanner (GetItem finds nothing in our partition)', async () => {
    const response = await getHandler(getEvent(), unitContext());
    const error = expectEnvelope(response, 404, 'not_found');
    expect(error.type).toBe('not_found_error');
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` });
  });

  it('answers 400 naming an unknown query parameter', async () => {
    const response = await getHandler(getEvent({ query: { expand: 'versions' } }), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('expand');
  });

  it('answers 500 internal_error on a DynamoDB failure, logging it but leaking nothing', async () => {
    const failure = new Error(
      'AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/scanner-get is not authorized to perform dynamodb:GetItem on unit-table',
    );
    ddb.on(GetCommand).rejects(failure);
    const response = await getHandler(getEvent(), unitContext());
    const error = expectEnvelope(response, 500, 'internal_error');
    expect(error.type).toBe('api_error');
    expect(error).not.toHaveProperty('param');
    for (const leak of ['AccessDenied', 'arn:aws', 'dynamodb', 'unit-table', '123456789012', 'stack', '    at ', '.ts:']) {
      expect(response.body).not.toContain(leak);
    }
    expect(loggerError).toHaveBeenCalledOnce();
  });
});

describe('GET /v1/scanners', () => {
  const listEvent = (query?: Record<string, string>) => apiEvent({ method: 'GET', path: '/v1/scanners', ...(query ? { query } : {}) });

  it('answers the list envelope, coercing limit from the query string', async () => {
    ddb.on(QueryCommand).resolves({ Items: [storedScanner] });
    const response = await listHandler(listEvent({ limit: '1' }), unitContext());
    expect(response.statusCode).toBe(200);
    const body = jsonBody<{ object: string; data: { scanner_id: string }[]; next_cursor: string | null }>(response);
    expect(body.object).toBe('list');
    expect(body.data.map((s) => s.scanner_id)).toEqual([SCANNER_ID]);
    expect(body.next_cursor).toBeNull();
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.Limit).toBe(2);
  });

  it('answers 400 param limit for an out-of-range limit and 400 invalid_cursor for a forged cursor', async () => {
    expect(expectEnvelope(await listHandler(listEvent({ limit: '101' }), unitContext()), 400, 'validation_failed').param).toBe('limit');
    expect(expectEnvelope(await listHandler(listEvent({ cursor: 'abc.def' }), unitContext()), 400, 'invalid_cursor').param).toBe('cursor');
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe('POST /v1/scanners body handling', () => {
  it('creates a scanner: 201 with version 1', async () => {
    const response = await createHandler(createEvent(validBody), unitContext());
    expect(response.statusCode).toBe(201);
    expect(jsonBody<ScannerResource>(response)).toMatchObject({ object: 'scanner', version: 1, name: 'Highlights' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('reads a base64-encoded body', async () => {
    const event = createEvent(Buffer.from(JSON.stringify(validBody)).toString('base64'), { isBase64Encoded: true });
    expect((await createHandler(event, unitContext())).statusCode).toBe(201);
  });

  it.each([
    ['malformed JSON', '{"name": "x",'],
    ['an empty body', ''],
  ])('answers 400 param body for %s', async (_label, body) => {
    const response = await createHandler(createEvent(body), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('body');
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 400 param body when there is no body at all', async () => {
    const response = await createHandler(apiEvent({ method: 'POST', path: '/v1/scanners' }), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('body');
  });

  it('answers 400 naming an unknown field', async () => {
    const response = await createHandler(createEvent({ ...validBody, colour: 'red' }), unitContext());
    const error = expectEnvelope(response, 400, 'validation_failed');
    expect(error.param).toBe('colour');
    expect(error.message).toContain('colour');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('names the path of a nested problem the way an integrator writes it', async () => {
    const response = await createHandler(createEvent({ ...validBody, type: 'classifier', output: { labels: ['goal', ''] } }), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('output.labels[1]');
  });

  it('answers 400 for a domain rule with the offending param', async () => {
    const response = await createHandler(createEvent({ ...validBody, type: 'classifier', output: { labels: ['goal', 'Other'] } }), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('output.labels[1]');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    for (const body of ['[]', '"text"', 'null', '42']) {
      expectEnvelope(await createHandler(createEvent(body), unitContext()), 400, 'validation_failed');
    }
  });
});

describe('Idempotency-Key', () => {
  const withKey = (key: string, body: unknown = validBody, requestId = 'req-unit-0001') =>
    createEvent(body, { headers: { 'idempotency-key': key }, requestId });

  it.each([
    ['a space', 'order 1'],
    ['300 characters', 'k'.repeat(300)],
    ['256 characters', 'k'.repeat(256)],
    ['an empty value', ''],
    ['a non-ASCII character', 'commande-é'],
  ])('answers 400 param Idempotency-Key for a key with %s', async (_label, key) => {
    const response = await createHandler(withKey(key), unitContext());
    expect(expectEnvelope(response, 400, 'validation_failed').param).toBe('Idempotency-Key');
    expect(dynamo.calls()).toHaveLength(0);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('accepts a 255-character key and stores the record in the account partition', async () => {
    const key = 'k'.repeat(255);
    const response = await createHandler(withKey(key), unitContext());
    expect(response.statusCode).toBe(201);
    expect(response.headers).not.toHaveProperty('idempotent-replayed');
    const put = dynamo.commandCalls(PutItemCommand)[0]!.args[0].input;
    expect(put.Item?.PK).toEqual({ S: `ACCT#${ACCOUNT_ID}` });
    expect(put.Item?.SK).toEqual({ S: `IDEM#${createHash('sha256').update(key).digest('hex')}` });
  });

  it('replays the first response for a retry, marked idempotent-replayed, without creating again', async () => {
    const first = await createHandler(withKey('retry-1', validBody, 'req-first'), unitContext());
    expect(first.statusCode).toBe(201);
    const stored = unmarshall(dynamo.commandCalls(UpdateItemCommand)[0]!.args[0].input.ExpressionAttributeValues ?? {})[':response_data'] as Record<
      string,
      unknown
    >;

    dynamo.on(PutItemCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        Item: marshall({ PK: `ACCT#${ACCOUNT_ID}`, SK: 'IDEM#x', status: 'COMPLETED', ttl: Math.floor(Date.now() / 1000) + 600, data: stored }),
      }),
    );
    // Same request, keys in another order: still the same request.
    const reordered = { type: validBody.type, instructions: validBody.instructions, name: validBody.name };
    const retry = await createHandler(withKey('retry-1', reordered, 'req-second'), unitContext());
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['x-request-id']).toBe('req-second');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);

    // The same key with another body is a conflict, and the original stays replayable.
    const reuse = await createHandler(withKey('retry-1', { ...validBody, name: 'Other' }, 'req-third'), unitContext());
    expect(expectEnvelope(reuse, 409, 'idempotency_key_reused', 'req-third').param).toBe('Idempotency-Key');
    expect(dynamo.commandCalls(DeleteItemCommand)).toHaveLength(0);
  });

  it('answers 409 idempotency_request_in_progress while the first request runs', async () => {
    dynamo.on(PutItemCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        Item: marshall({
          PK: `ACCT#${ACCOUNT_ID}`,
          SK: 'IDEM#x',
          status: 'INPROGRESS',
          ttl: Math.floor(Date.now() / 1000) + 600,
          in_progress_expiration: Date.now() + 20_000,
        }),
      }),
    );
    const response = await createHandler(withKey('busy-1'), unitContext());
    expectEnvelope(response, 409, 'idempotency_request_in_progress');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('lets a corrected retry run after a request that failed validation in the domain', async () => {
    const bad = await createHandler(withKey('fix-1', { ...validBody, max_observations: 50, type: 'summarizer', min_seconds: 10 }), unitContext());
    expect(expectEnvelope(bad, 400, 'validation_failed').param).toBe('min_seconds');
    // The record is released rather than kept as a failure, so the same key can be used again.
    const deleted = dynamo.commandCalls(DeleteItemCommand);
    expect(deleted).toHaveLength(1);
    const locked = dynamo.commandCalls(PutItemCommand)[0]!.args[0].input.Item;
    expect(deleted[0]!.args[0].input.Key).toEqual({ PK: locked?.PK, SK: locked?.SK });
    const fixed = await createHandler(withKey('fix-1', { ...validBody, max_observations: 50, type: 'summarizer' }), unitContext());
    expect(fixed.statusCode).toBe(201);
  });

  it('is ignored on read routes', async () => {
    ddb.on(GetCommand, { Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` } }).resolves({ Item: storedScanner });
    const response = await getHandler(getEvent({ headers: { 'idempotency-key': 'not valid at all' } }), unitContext());
    expect(response.statusCode).toBe(200);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

describe('PATCH /v1/scanners/{scanner_id}', () => {
  const patchEvent = (body: unknown) =>
    apiEvent({ method: 'PATCH', path: `/v1/scanners/${SCANNER_ID}`, pathParameters: { scanner_id: SCANNER_ID }, body: JSON.stringify(body) });

  it('answers 200 with version N+1', async () => {
    ddb.on(GetCommand, { Key: { PK: `ACCT#${ACCOUNT_ID}`, SK: `SCN#${SCANNER_ID}` } }).resolves({ Item: storedScanner });
    const response = await updateHandler(patchEvent({ name: 'Renamed' }), unitContext());
    expect(response.statusCode).toBe(200);
    expect(jsonBody<ScannerResource>(response)).toMatchObject({ version: 3, name: 'Renamed', min_seconds: 10, created_at: scanner.createdAt });
  });

  it('answers 400 for an empty patch and 404 for a foreign scanner', async () => {
    expectEnvelope(await updateHandler(patchEvent({}), unitContext()), 400, 'validation_failed');
    expectEnvelope(await updateHandler(patchEvent({ name: 'x' }), unitContext()), 404, 'not_found');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
