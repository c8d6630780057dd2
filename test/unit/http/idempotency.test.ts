import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { AccountScopedPersistenceLayer } from '../../../functions/adapters/idempotency-store.js';
import { createIdempotentExecutor, type IdempotentCall } from '../../../functions/http/idempotency.js';
import { requestFingerprint } from '../../../functions/http/fingerprint.js';
import { ApiError } from '../../../functions/domain/errors.js';
import type { HttpResult } from '../../../functions/http/types.js';
import { ACCOUNT_ID, TABLE_NAME, unitContext } from '../../helpers/unit-fixtures.js';

const dynamo = mockClient(DynamoDBClient);
const TTL_SECONDS = 3600;
const executor = createIdempotentExecutor(new AccountScopedPersistenceLayer(new DynamoDBClient({ region: 'eu-west-1' }), TABLE_NAME), TTL_SECONDS);

const IDEMPOTENCY_KEY = 'order-2026-0001';
const KEY = { PK: `ACCT#${ACCOUNT_ID}`, SK: `IDEM#${createHash('sha256').update(IDEMPOTENCY_KEY).digest('hex')}` };
const FINGERPRINT = requestFingerprint('POST', '/v1/scanners', { name: 'a' });
const created: HttpResult = { status: 201, body: { object: 'scanner', scanner_id: 'scn_1', version: 1 } };

const call = (overrides: Partial<IdempotentCall> = {}) => {
  const execute = vi.fn((): Promise<HttpResult> => Promise.resolve(created));
  return {
    execute,
    call: { accountId: ACCOUNT_ID, idempotencyKey: IDEMPOTENCY_KEY, fingerprint: FINGERPRINT, requestId: 'req-second', execute, ...overrides },
  };
};

/** What PutItem answers when a record already exists (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
const existing = (record: Record<string, unknown> | undefined) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(record ? { Item: marshall({ ...KEY, ...record }) } : {}),
  });
const future = () => Math.floor(Date.now() / 1000) + 600;
const completed = (fingerprint = FINGERPRINT) => ({
  status: 'COMPLETED',
  ttl: future(),
  data: { status: created.status, bodyJson: JSON.stringify(created.body), fingerprint, requestId: 'req-first' },
});

beforeEach(() => {
  dynamo.reset();
  dynamo.on(PutItemCommand).resolves({});
  dynamo.on(UpdateItemCommand).resolves({});
  dynamo.on(DeleteItemCommand).resolves({});
});
afterAll(() => dynamo.restore());

describe('createIdempotentExecutor', () => {
  it('runs the use case once on first use and stores its response with the fingerprint', async () => {
    const { call: first, execute } = call({ requestId: 'req-first' });
    await expect(executor(first, unitContext())).resolves.toEqual({ result: created, replayed: false });
    expect(execute).toHaveBeenCalledOnce();

    const update = dynamo.commandCalls(UpdateItemCommand)[0]!.args[0].input;
    expect(update.Key).toEqual({ PK: { S: KEY.PK }, SK: { S: KEY.SK } });
    const values = unmarshall(update.ExpressionAttributeValues ?? {});
    expect(values[':status']).toBe('COMPLETED');
    expect(values[':response_data']).toEqual({
      status: created.status,
      bodyJson: JSON.stringify(created.body),
      fingerprint: FINGERPRINT,
      requestId: 'req-first',
    });
  });

  it('replays a COMPLETED record: the stored response, replayed=true, the use case not run again', async () => {
    dynamo.on(PutItemCommand).rejects(existing(completed()));
    const { call: retry, execute } = call();
    await expect(executor(retry, unitContext())).resolves.toEqual({ result: created, replayed: true });
    expect(execute).not.toHaveBeenCalled();
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(DeleteItemCommand)).toHaveLength(0);
  });

  it('reads the record when the failed put does not return it', async () => {
    dynamo.on(PutItemCommand).rejects(existing(undefined));
    dynamo.on(GetItemCommand).resolves({ Item: marshall({ ...KEY, ...completed() }) });
    const { call: retry, execute } = call();
    await expect(executor(retry, unitContext())).resolves.toEqual({ result: created, replayed: true });
    expect(execute).not.toHaveBeenCalled();
    const get = dynamo.commandCalls(GetItemCommand)[0]!.args[0].input;
    expect(get.Key).toEqual({ PK: { S: KEY.PK }, SK: { S: KEY.SK } });
    expect(get.ConsistentRead).toBe(true);
  });

  it('refuses the same key with another request (409 idempotency_key_reused) and keeps the original record', async () => {
    dynamo.on(PutItemCommand).rejects(existing(completed(requestFingerprint('POST', '/v1/scanners', { name: 'b' }))));
    const { call: reuse, execute } = call();
    const error = await executor(reuse, unitContext()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'idempotency_key_reused', status: 409, param: 'Idempotency-Key' });
    expect(execute).not.toHaveBeenCalled();
    // STACK.md gotcha: Powertools' own payload validation deletes the record; ours must not.
    expect(dynamo.commandCalls(DeleteItemCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(0);
  });

  it('keeps replaying the original after a mismatched reuse (third attempt still replays)', async () => {
    dynamo.on(PutItemCommand).rejects(existing(completed()));
    const other = call({ fingerprint: requestFingerprint('POST', '/v1/scanners', { name: 'b' }) });
    await expect(executor(other.call, unitContext())).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const original = call();
    await expect(executor(original.call, unitContext())).resolves.toEqual({ result: created, replayed: true });
    expect(original.execute).not.toHaveBeenCalled();
  });

  it('answers 409 idempotency_request_in_progress while the first request is still running', async () => {
    dynamo.on(PutItemCommand).rejects(existing({ status: 'INPROGRESS', ttl: future(), in_progress_expiration: Date.now() + 20_000 }));
    const { call: concurrent, execute } = call();
    const error = await executor(concurrent, unitContext()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'idempotency_request_in_progress', status: 409 });
    expect(execute).not.toHaveBeenCalled();
    expect(dynamo.commandCalls(DeleteItemCommand)).toHaveLength(0);
  });

  it('releases the record when the use case fails, so a retry runs again, and passes the error on', async () => {
    const { call: failing } = call({ execute: () => Promise.reject(new ApiError('not_found', 'No such scanner.')) });
    const error = await executor(failing, unitContext()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'not_found' });
    const deleted = dynamo.commandCalls(DeleteItemCommand);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.args[0].input.Key).toEqual({ PK: { S: KEY.PK }, SK: { S: KEY.SK } });
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(0);
  });
});

describe('requestFingerprint', () => {
  it('ignores key order at every depth', () => {
    const a = requestFingerprint('POST', '/v1/scanners', { name: 'n', output: { labels: ['x', 'y'], fields: ['f'] }, metadata: { b: 1, a: 2 } });
    const b = requestFingerprint('POST', '/v1/scanners', { metadata: { a: 2, b: 1 }, output: { fields: ['f'], labels: ['x', 'y'] }, name: 'n' });
    expect(a).toBe(b);
  });

  it('tells apart method, path, values and array order', () => {
    const base = requestFingerprint('PATCH', '/v1/scanners/scn_1', { labels: ['x', 'y'] });
    expect(requestFingerprint('POST', '/v1/scanners/scn_1', { labels: ['x', 'y'] })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/scanners/scn_2', { labels: ['x', 'y'] })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/scanners/scn_1', { labels: ['y', 'x'] })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/scanners/scn_1', { labels: ['x', 'y'], extra: null })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/scanners/scn_1', { labels: ['x', 'y'] })).toBe(base);
  });
});
