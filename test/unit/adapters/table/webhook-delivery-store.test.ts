import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CursorCodec } from '../../../../functions/adapters/table/cursor.js';
import { dynamoWebhookDeliveryStore } from '../../../../functions/adapters/table/webhook-delivery-store.js';
import type { WebhookDeliveryRecord } from '../../../../functions/domain/webhooks/model.js';
import { ACCOUNT_ID, CURSOR_SECRET, TABLE_NAME } from '../../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = dynamoWebhookDeliveryStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.resolve(new CursorCodec(CURSOR_SECRET)) });

const delivery = (overrides: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => ({
  deliveryId: 'dlv_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
  accountId: ACCOUNT_ID,
  endpointId: 'whe_0190a0b0c0d07e0f8a9b0c1d2e3f4a01',
  eventId: 'evt_5f0c2a9e7b3d41c8a6e2f9b0d4c7a1e3',
  eventType: 'run.completed',
  payload: '{"id":"evt_5f0c2a9e7b3d41c8a6e2f9b0d4c7a1e3"}',
  status: 'pending',
  attempts: [],
  nextAttemptAt: '2026-01-02T00:00:00.000Z',
  createdAt: '2026-01-02T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  ...overrides,
});
const PK = `ACCT#${ACCOUNT_ID}`;
const ttl = Date.parse('2026-01-02T00:00:00.000Z') / 1000 + 30 * 86_400;

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('dynamoWebhookDeliveryStore', () => {
  it('creates a delivery with one conditional Put (its id names the event and the endpoint); pending ones go on the due index', async () => {
    ddb.on(PutCommand).resolves({});
    const d = delivery();
    expect(await store.createOnce(d)).toEqual({ created: true, delivery: d });
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE_NAME,
        Item: { PK, SK: `DLV#${d.deliveryId}`, GSI1PK: 'WEBHOOK#DUE', GSI1SK: `${d.nextAttemptAt}#${d.deliveryId}`, entity: 'webhook_delivery', ...d, ttl },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    ]);
  });

  it('returns the delivery made before when the item exists (a repeated fan-out)', async () => {
    ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
    const earlier = delivery({ status: 'succeeded', nextAttemptAt: null, attempts: [{ at: 'a', statusCode: 200, durationMs: 5 }] });
    ddb
      .on(GetCommand, { Key: { PK, SK: `DLV#${earlier.deliveryId}` } })
      .resolves({ Item: { PK, SK: `DLV#${earlier.deliveryId}`, entity: 'webhook_delivery', ttl, ...earlier } });
    expect(await store.createOnce(delivery())).toEqual({ created: false, delivery: earlier });
  });

  it('records an attempt only at the attempt count it was read with, moving the due index or leaving it once terminal', async () => {
    ddb.on(UpdateCommand).resolves({});
    const d = delivery({ attempts: [{ at: 'a', statusCode: 500, durationMs: 3 }] });
    const attempt = { at: '2026-01-02T00:00:05.000Z', error: 'timeout', durationMs: 15_000 };
    await store.recordAttempt(d, attempt, { status: 'pending', nextAttemptAt: '2026-01-02T00:05:20.000Z' }, '2026-01-02T00:00:20.000Z');
    await store.recordAttempt(d, attempt, { status: 'failed', nextAttemptAt: null }, '2026-01-02T00:00:20.000Z');
    const [pending, failed] = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(pending).toMatchObject({
      Key: { PK, SK: `DLV#${d.deliveryId}` },
      UpdateExpression:
        'SET attempts = list_append(attempts, :attempt), #status = :status, nextAttemptAt = :next, updatedAt = :now, GSI1PK = :gpk, GSI1SK = :gsk REMOVE manualRetry',
      ConditionExpression: '#status = :pending AND size(attempts) = :count',
      ExpressionAttributeValues: { ':attempt': [attempt], ':count': 1, ':gpk': 'WEBHOOK#DUE', ':gsk': `2026-01-02T00:05:20.000Z#${d.deliveryId}` },
    });
    expect(failed!.UpdateExpression).toBe(
      'SET attempts = list_append(attempts, :attempt), #status = :status, nextAttemptAt = :next, updatedAt = :now REMOVE manualRetry, GSI1PK, GSI1SK',
    );
    expect(failed!.ExpressionAttributeValues).toMatchObject({ ':status': 'failed', ':next': null });
  });

  it('lists newest first, filtered in code, and reads due deliveries of every account oldest first', async () => {
    const a = delivery({ deliveryId: 'dlv_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c', status: 'failed' });
    const b = delivery({ deliveryId: 'dlv_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b' });
    ddb.on(QueryCommand).resolves({ Items: [a, b].map((d) => ({ PK, SK: `DLV#${d.deliveryId}`, ...d })) });
    const page = await store.list(ACCOUNT_ID, { status: 'failed', eventId: a.eventId }, { limit: 10 });
    expect(page).toEqual({ items: [a], nextCursor: null });
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      ExpressionAttributeValues: { ':pk': PK, ':from': 'DLV#' },
      ScanIndexForward: false,
    });

    await store.listDue('2026-01-02T00:00:10.000Z', 50);
    expect(ddb.commandCalls(QueryCommand)[1]!.args[0].input).toEqual({
      TableName: TABLE_NAME,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :due AND GSI1SK <= :to',
      ExpressionAttributeValues: { ':due': 'WEBHOOK#DUE', ':to': '2026-01-02T00:00:10.000Z#\uffff' },
      ScanIndexForward: true,
      Limit: 50,
    });
  });
});
