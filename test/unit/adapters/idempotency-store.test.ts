import { createHash } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AccountScopedPersistenceLayer } from '../../../functions/adapters/idempotency-store.js';
import { createIdempotentExecutor, type IdempotentCall } from '../../../functions/http/idempotency.js';
import type { HttpResult } from '../../../functions/http/types.js';
import { ACCOUNT_ID, TABLE_NAME, unitContext } from '../../helpers/unit-fixtures.js';

const dynamo = mockClient(DynamoDBClient);
const TTL_SECONDS = 3600;
const executor = createIdempotentExecutor(new AccountScopedPersistenceLayer(new DynamoDBClient({ region: 'eu-west-1' }), TABLE_NAME), TTL_SECONDS);

const IDEMPOTENCY_KEY = 'order-2026-0001';
const KEY = { PK: `ACCT#${ACCOUNT_ID}`, SK: `IDEM#${createHash('sha256').update(IDEMPOTENCY_KEY).digest('hex')}` };
const created: HttpResult = { status: 201, body: { object: 'scanner', scanner_id: 'scn_1' } };

const call = (overrides: Partial<IdempotentCall> = {}) => {
  const execute = (): Promise<HttpResult> => Promise.resolve(created);
  return { call: { accountId: ACCOUNT_ID, idempotencyKey: IDEMPOTENCY_KEY, fingerprint: 'fp', requestId: 'req-1', execute, ...overrides } };
};

beforeEach(() => {
  dynamo.reset();
  dynamo.on(PutItemCommand).resolves({});
  dynamo.on(UpdateItemCommand).resolves({});
});
afterAll(() => dynamo.restore());

describe('AccountScopedPersistenceLayer keys', () => {
  it('keys the record into the account partition as IDEM#<sha256 of the key>, never storing the key itself', async () => {
    await executor(call().call, unitContext());
    const put = dynamo.commandCalls(PutItemCommand)[0]!.args[0].input;
    expect(put.TableName).toBe(TABLE_NAME);
    expect(put.Item?.PK).toEqual({ S: KEY.PK });
    expect(put.Item?.SK).toEqual({ S: KEY.SK });
    expect(JSON.stringify(put)).not.toContain(IDEMPOTENCY_KEY);
    // Locks only a missing or expired record.
    expect(put.ConditionExpression).toContain('attribute_not_exists(#id)');
    expect(put.ExpressionAttributeNames?.['#id']).toBe('PK');
    expect(put.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('keeps the same key of two accounts apart', async () => {
    await executor(call().call, unitContext());
    await executor(call({ accountId: 'acct_ffffffffffffffffffffffffffffffff' }).call, unitContext());
    const [mine, theirs] = dynamo.commandCalls(PutItemCommand).map((c) => c.args[0].input.Item);
    expect(mine?.SK).toEqual(theirs?.SK);
    expect(mine?.PK).toEqual({ S: `ACCT#${ACCOUNT_ID}` });
    expect(theirs?.PK).toEqual({ S: 'ACCT#acct_ffffffffffffffffffffffffffffffff' });
  });

  it("expires the record on the table's TTL attribute and bounds the lock by the invocation's remaining time", async () => {
    const before = Math.floor(Date.now() / 1000);
    await executor(call().call, unitContext());
    const item = unmarshall(dynamo.commandCalls(PutItemCommand)[0]!.args[0].input.Item ?? {});
    expect(item.status).toBe('INPROGRESS');
    expect(item.ttl).toBeGreaterThanOrEqual(before + TTL_SECONDS);
    expect(item.ttl).toBeLessThanOrEqual(before + TTL_SECONDS + 2);
    expect(item.in_progress_expiration).toBeGreaterThan(Date.now());
    expect(item.in_progress_expiration).toBeLessThanOrEqual(Date.now() + 29_000);
  });

  it('completes the record under the same key it locked', async () => {
    await executor(call().call, unitContext());
    const update = dynamo.commandCalls(UpdateItemCommand)[0]!.args[0].input;
    expect(update.TableName).toBe(TABLE_NAME);
    expect(update.Key).toEqual({ PK: { S: KEY.PK }, SK: { S: KEY.SK } });
  });

  it('hashes keys that differ only in case or a trailing character to different records', async () => {
    for (const idempotencyKey of [IDEMPOTENCY_KEY, IDEMPOTENCY_KEY.toUpperCase(), `${IDEMPOTENCY_KEY}x`]) {
      await executor(call({ idempotencyKey }).call, unitContext());
    }
    const sks = dynamo.commandCalls(PutItemCommand).map((c) => c.args[0].input.Item?.SK?.S);
    expect(new Set(sks).size).toBe(3);
    for (const sk of sks) expect(sk).toMatch(/^IDEM#[0-9a-f]{64}$/);
  });
});
