import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CursorCodec } from '../../../functions/adapters/table/cursor.js';
import { dynamoUploadStore } from '../../../functions/adapters/table/upload-store.js';
import { uploadEntity } from '../../../functions/adapters/table/entities/upload.js';
import type { UploadRecord } from '../../../functions/domain/uploads/model.js';
import { announcement } from '../../../functions/domain/events/model.js';
import { ACCOUNT_ID, CURSOR_SECRET, OTHER_ACCOUNT_ID, TABLE_NAME, uploadRecord } from '../../helpers/unit-fixtures.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const ddb = mockClient(DynamoDBDocumentClient);
const cursors = new CursorCodec(CURSOR_SECRET);
const store = dynamoUploadStore({ doc, tableName: TABLE_NAME, cursors: () => Promise.resolve(cursors) });

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

const upload = (n: number, status: UploadRecord['status'] = 'pending'): UploadRecord =>
  uploadRecord({
    uploadId: `upl_${String(n).padStart(32, '0')}`,
    status,
    filename: `f${n}.mp3`,
    sizeBytes: n,
    objectKey: `accounts/${ACCOUNT_ID}/uploads/upl_${n}`,
  });
const item = (u: UploadRecord) => uploadEntity.item(ACCOUNT_ID, u, 123);

describe('dynamoUploadStore', () => {
  it('creates under ACCT#<account>/UPL#<id> with the table TTL, never overwriting', async () => {
    ddb.on(PutCommand).resolves({});
    await store.create(ACCOUNT_ID, upload(1), 1_800_000_000);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE_NAME,
      Item: { PK: `ACCT#${ACCOUNT_ID}`, SK: `UPL#${upload(1).uploadId}`, entity: 'upload', ...upload(1), ttl: 1_800_000_000 },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  });

  it('reads without the table attributes', async () => {
    ddb.on(GetCommand).resolves({ Item: item(upload(2)) });
    await expect(store.get(ACCOUNT_ID, upload(2).uploadId)).resolves.toEqual(upload(2));
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual(uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: upload(2).uploadId }));
  });

  it('moves pending to terminal with its event in the outbox, in one transaction, and reports a lost race', async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejectsOnce(
        new TransactionCanceledException({ message: 'no', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }),
      );
    const ready = { ...upload(3), status: 'ready' as const };
    const ann = announcement('upload.ready', { kind: 'upload', uploadId: ready.uploadId }, ready.updatedAt);
    await expect(store.finish(ACCOUNT_ID, ready, 99, [ann])).resolves.toBe(true);
    await expect(store.finish(ACCOUNT_ID, ready, 99, [ann])).resolves.toBe(false);
    const [transition, outbox] = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(transition?.Put).toMatchObject({
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'pending' },
      Item: { status: 'ready', ttl: 99 },
    });
    expect(outbox?.Put?.Item).toMatchObject({
      PK: `ACCT#${ACCOUNT_ID}`,
      SK: `OUTBOX#${ann.eventId}`,
      entity: 'outbox',
      type: 'upload.ready',
      subject: { kind: 'upload', uploadId: ready.uploadId },
    });
  });

  it('lists newest first with the plain paging when there is no filter', async () => {
    ddb.on(QueryCommand).resolves({ Items: [item(upload(9)), item(upload(8))] });
    const page = await store.list(ACCOUNT_ID, { limit: 5 });
    expect(page).toEqual({ items: [upload(9), upload(8)], nextCursor: null });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      ExpressionAttributeValues: { ':pk': `ACCT#${ACCOUNT_ID}`, ':from': 'UPL#', ':to': 'UPL#\uffff' },
      ScanIndexForward: false,
      Limit: 6,
    });
  });

  describe('filtered lists', () => {
    const ready = (n: number) => upload(n, 'ready');
    const keep = (u: UploadRecord) => u.status === 'ready';

    it('fills a page across query rounds and resumes after the last item returned', async () => {
      ddb
        .on(QueryCommand)
        .resolvesOnce({
          Items: [item(upload(20)), item(ready(19)), item(upload(18))],
          LastEvaluatedKey: uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: upload(18).uploadId }),
        })
        .resolvesOnce({
          Items: [item(ready(17)), item(upload(16)), item(ready(15)), item(ready(14))],
          LastEvaluatedKey: uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: upload(14).uploadId }),
        });
      const page = await store.list(ACCOUNT_ID, { limit: 2 }, keep);
      expect(page.items.map((u) => u.sizeBytes)).toEqual([19, 17]);
      // The match beyond the page (15) is not skipped: the cursor resumes after the last item read before it.
      const resume = cursors.decode(ACCOUNT_ID, { PK: `ACCT#${ACCOUNT_ID}`, prefix: 'UPL#' }, page.nextCursor ?? '');
      expect(resume).toEqual(uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: upload(16).uploadId }));
      expect(ddb.commandCalls(QueryCommand)[1]?.args[0].input.ExclusiveStartKey).toEqual(
        uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: upload(18).uploadId }),
      );
    });

    it('says null when the collection ends, even on a short page', async () => {
      ddb.on(QueryCommand).resolves({ Items: [item(ready(3)), item(upload(2))] });
      await expect(store.list(ACCOUNT_ID, { limit: 5 }, keep)).resolves.toEqual({ items: [ready(3)], nextCursor: null });
    });

    it('rejects a cursor of another account', async () => {
      const foreign = cursors.encode(OTHER_ACCOUNT_ID, 'UPL#', uploadEntity.key({ accountId: OTHER_ACCOUNT_ID, uploadId: 'upl_1' }));
      await expect(store.list(ACCOUNT_ID, { limit: 5, cursor: foreign }, keep)).rejects.toMatchObject({ code: 'invalid_cursor' });
    });

    it('stops after its read budget with a cursor to go on', async () => {
      let n = 5000;
      ddb.on(QueryCommand).callsFake(() => {
        const items = Array.from({ length: 100 }, () => item(upload(n--)));
        return Promise.resolve({ Items: items, LastEvaluatedKey: uploadEntity.key({ accountId: ACCOUNT_ID, uploadId: 'upl_more' }) });
      });
      const page = await store.list(ACCOUNT_ID, { limit: 5 }, keep);
      expect(page.items).toEqual([]);
      expect(page.nextCursor).not.toBeNull();
      expect(ddb.commandCalls(QueryCommand)).toHaveLength(10);
    });
  });
});
