import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoWebhookEndpointStore } from '../../../../functions/adapters/table/webhook-endpoint-store.js';
import { CursorCodec } from '../../../../functions/adapters/table/cursor.js';
import type { WebhookEndpointRecord } from '../../../../functions/domain/webhooks/model.js';
import { ACCOUNT_ID, CURSOR_SECRET, TABLE_NAME } from '../../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = dynamoWebhookEndpointStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.resolve(new CursorCodec(CURSOR_SECRET)) });

const ENDPOINT_ID = 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
const PK = `ACCT#${ACCOUNT_ID}`;
const endpoint = (overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  endpointId: ENDPOINT_ID,
  accountId: ACCOUNT_ID,
  url: 'https://hooks.example.com/in',
  events: ['run.completed'],
  description: null,
  enabled: true,
  secrets: [{ secret: 'whsec_c2VjcmV0' }],
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  ...overrides,
});
const conditionFailedAt = (index: number) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [0, 1].map((i) => ({ Code: i === index ? 'ConditionalCheckFailed' : 'None' })),
  });

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('dynamoWebhookEndpointStore.create', () => {
  it('counts the endpoint and writes it in one transaction, the count conditioned on the limit', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await expect(store.create(endpoint(), 16)).resolves.toBe(true);
    const [count, put] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
    expect(count?.Update).toMatchObject({
      TableName: TABLE_NAME,
      Key: { PK, SK: 'WHECOUNT' },
      UpdateExpression: 'SET entity = :entity ADD endpointCount :one',
      ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max',
      ExpressionAttributeValues: { ':entity': 'webhook_endpoint_count', ':one': 1, ':max': 16 },
    });
    expect(put?.Put).toEqual({
      TableName: TABLE_NAME,
      Item: { PK, SK: `WHE#${ENDPOINT_ID}`, entity: 'webhook_endpoint', ...endpoint() },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  });

  it('answers false at the limit, and counts without a condition when no limit is given', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(conditionFailedAt(0)).resolves({});
    await expect(store.create(endpoint(), 16)).resolves.toBe(false);
    await expect(store.create(endpoint())).resolves.toBe(true);
    const count = ddb.commandCalls(TransactWriteCommand)[1]!.args[0].input.TransactItems?.[0]?.Update;
    expect(count?.ConditionExpression).toBeUndefined();
    expect(count?.ExpressionAttributeValues).toEqual({ ':entity': 'webhook_endpoint_count', ':one': 1 });
  });

  it('never overwrites an endpoint', async () => {
    ddb.on(TransactWriteCommand).rejects(conditionFailedAt(1));
    await expect(store.create(endpoint(), 16)).rejects.toThrow(/exists already/);
  });
});

describe('dynamoWebhookEndpointStore reads', () => {
  it('gets one endpoint by its account-scoped key, strongly consistent, without table attributes', async () => {
    ddb.on(GetCommand).resolves({ Item: { PK, SK: `WHE#${ENDPOINT_ID}`, entity: 'webhook_endpoint', ...endpoint() } });
    await expect(store.get(ACCOUNT_ID, ENDPOINT_ID)).resolves.toEqual(endpoint());
    expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: { PK, SK: `WHE#${ENDPOINT_ID}` }, ConsistentRead: true });
  });

  it('lists a page newest first within the WHE# prefix (the count item is outside it)', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ PK, SK: `WHE#${ENDPOINT_ID}`, entity: 'webhook_endpoint', ...endpoint() }] });
    await expect(store.list(ACCOUNT_ID, { limit: 10 })).resolves.toEqual({ items: [endpoint()], nextCursor: null });
    const input = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input.ScanIndexForward).toBe(false);
    expect(input.ExpressionAttributeValues).toEqual({ ':pk': PK, ':from': 'WHE#', ':to': 'WHE#\uffff' });
    expect('WHECOUNT'.startsWith('WHE#')).toBe(false);
  });

  it('lists every endpoint of the account for fan-out, following pages, without the cursor key', async () => {
    const other = endpoint({ endpointId: 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c' });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ PK, SK: `WHE#${ENDPOINT_ID}`, ...endpoint() }], LastEvaluatedKey: { PK, SK: `WHE#${ENDPOINT_ID}` } })
      .resolvesOnce({ Items: [{ PK, SK: `WHE#${other.endpointId}`, ...other }] });
    const cursorless = dynamoWebhookEndpointStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.reject(new Error('no cursor key here')) });
    await expect(cursorless.listAll(ACCOUNT_ID)).resolves.toEqual([endpoint(), other]);
    const [first, second] = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(first).toMatchObject({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: { ':pk': PK, ':prefix': 'WHE#' },
      ConsistentRead: true,
    });
    expect(second?.ExclusiveStartKey).toEqual({ PK, SK: `WHE#${ENDPOINT_ID}` });
  });
});

describe('dynamoWebhookEndpointStore.replace', () => {
  it('writes only over an existing endpoint, and with readUpdatedAt only over the version read', async () => {
    ddb.on(PutCommand).resolves({});
    await expect(store.replace(endpoint({ enabled: false }))).resolves.toBe(true);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_exists(PK)',
      Item: { PK, SK: `WHE#${ENDPOINT_ID}`, enabled: false },
    });
    await store.replace(endpoint({ updatedAt: '2026-03-01T10:00:01.000Z' }), '2026-03-01T10:00:00.000Z');
    expect(ddb.commandCalls(PutCommand)[1]!.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_exists(PK) AND updatedAt = :read',
      ExpressionAttributeValues: { ':read': '2026-03-01T10:00:00.000Z' },
    });
  });

  it('answers false when the condition fails', async () => {
    ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    await expect(store.replace(endpoint(), '2026-03-01T10:00:00.000Z')).resolves.toBe(false);
  });
});

describe('dynamoWebhookEndpointStore.delete', () => {
  it('deletes an existing endpoint and uncounts it in one transaction; false when there was none', async () => {
    ddb.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(conditionFailedAt(0));
    await expect(store.delete(ACCOUNT_ID, ENDPOINT_ID)).resolves.toBe(true);
    const [remove, count] = ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
    expect(remove?.Delete).toMatchObject({ Key: { PK, SK: `WHE#${ENDPOINT_ID}` }, ConditionExpression: 'attribute_exists(PK)' });
    expect(count?.Update).toMatchObject({
      Key: { PK, SK: 'WHECOUNT' },
      UpdateExpression: 'ADD endpointCount :minusOne',
      ExpressionAttributeValues: { ':minusOne': -1 },
    });
    await expect(store.delete(ACCOUNT_ID, ENDPOINT_ID)).resolves.toBe(false);
  });
});
