import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { outboxEntryEntity } from '../../../functions/adapters/table/entities/outbox-entry.js';
import { uploadEntity } from '../../../functions/adapters/table/entities/upload.js';
import { announcement } from '../../../functions/domain/events/model.js';
import { ACCOUNT_ID, stubServiceEnv, TABLE_NAME, uploadRecord } from '../../helpers/unit-fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const bridge = mockClient(EventBridgeClient);
beforeEach(() => {
  ddb.reset();
  bridge.reset();
  stubServiceEnv({ EVENT_BUS_NAME: 'service-bus' });
});
afterAll(() => {
  ddb.restore();
  bridge.restore();
});

const AT = '2026-03-01T10:05:00.000Z';
const ready = uploadRecord({ uploadId: 'upl_1', status: 'ready', readyAt: AT, updatedAt: AT, durationMs: 3000 });
const pending = (uploadId: string) => announcement('upload.ready', { kind: 'upload', uploadId }, AT);

/** Stream records as Lambda receives them from the table's stream. */
const streamOf = (records: { eventName: 'INSERT' | 'MODIFY' | 'REMOVE'; item: Record<string, unknown>; sequence: string }[]): DynamoDBStreamEvent => ({
  Records: records.map(({ eventName, item, sequence }) => ({
    eventName,
    dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) as never, SequenceNumber: sequence },
  })),
});

const load = async () => (await import('../../../functions/events/relay-outbox.js')).handler;

describe('the outbox relay on AWS (table stream -> bus)', () => {
  it('publishes each new announcement with the record as GET returns it, then deletes the outbox item', async () => {
    ddb.on(GetCommand).resolves({ Item: uploadEntity.item(ACCOUNT_ID, ready, 1) });
    ddb.on(DeleteCommand).resolves({});
    bridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const handler = await load();

    const result = await handler(streamOf([{ eventName: 'INSERT', item: outboxEntryEntity.item(ACCOUNT_ID, pending('upl_1')), sequence: '1' }]));
    expect(result).toEqual({ batchItemFailures: [] });
    const entry = bridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry).toMatchObject({ EventBusName: 'service-bus', Source: 'media-scanner', DetailType: 'upload.ready' });
    const detail = JSON.parse(entry?.Detail ?? '{}') as {
      account_id: string;
      event: { id: string; created_at: string; data: { object: { upload_id: string; status: string } } };
    };
    expect(detail).toMatchObject({
      account_id: ACCOUNT_ID,
      event: { id: pending('upl_1').eventId, created_at: AT, data: { object: { upload_id: 'upl_1', status: 'ready' } } },
    });
    expect(ddb.commandCalls(DeleteCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE_NAME,
      Key: outboxEntryEntity.key({ accountId: ACCOUNT_ID, eventId: pending('upl_1').eventId }),
    });
  });

  it('reports the first record it could not relay (and everything after it, in order) as failed; the item stays', async () => {
    ddb.on(GetCommand).resolves({ Item: uploadEntity.item(ACCOUNT_ID, ready, 1) });
    ddb.on(DeleteCommand).resolves({});
    bridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] })
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException' }] });
    const handler = await load();

    const result = await handler(
      streamOf([
        { eventName: 'INSERT', item: outboxEntryEntity.item(ACCOUNT_ID, pending('upl_1')), sequence: '1' },
        { eventName: 'INSERT', item: outboxEntryEntity.item(ACCOUNT_ID, pending('upl_2')), sequence: '2' },
        { eventName: 'INSERT', item: outboxEntryEntity.item(ACCOUNT_ID, pending('upl_3')), sequence: '3' },
      ]),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(1);
  });

  it('ignores anything but inserted items (the deletes it makes itself come back as REMOVE)', async () => {
    const handler = await load();
    const result = await handler(streamOf([{ eventName: 'REMOVE', item: outboxEntryEntity.item(ACCOUNT_ID, pending('upl_1')), sequence: '1' }]));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(bridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });
});
