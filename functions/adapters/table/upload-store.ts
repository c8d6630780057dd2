import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { collections, keys } from './keys.js';
import { tableDefinition } from './definition.js';
import { queryPage, stripKeys, type TableContext } from './query-page.js';
import { getRecord, transact } from './operations.js';
import { outboxPuts } from './outbox.js';
import type { UploadRecord } from '../../domain/uploads/model.js';
import type { UploadStore } from '../../domain/uploads/ports.js';

const toUpload = (item: Record<string, unknown>): UploadRecord => stripKeys(item) as unknown as UploadRecord;

export function dynamoUploadStore(table: TableContext): UploadStore {
  const { doc, tableName } = table;
  const ttl = tableDefinition.timeToLiveAttribute;

  return {
    async create(accountId, upload, expireAtEpochSeconds) {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.upload(accountId, upload.uploadId), entity: 'upload', ...upload, [ttl]: expireAtEpochSeconds },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    async get(accountId, uploadId) {
      const item = await getRecord<Record<string, unknown>>(table, keys.upload(accountId, uploadId));
      return item ? toUpload(item) : undefined;
    },

    finish: async (accountId, next, expireAtEpochSeconds, announcements) =>
      (
        await transact(table, [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.upload(accountId, next.uploadId), entity: 'upload', ...next, [ttl]: expireAtEpochSeconds },
              // Only a still-pending upload moves.
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':pending': 'pending' },
            },
          },
          ...outboxPuts(table, accountId, announcements),
        ])
      ).ok,

    list: (accountId, page, keep) => queryPage(table, accountId, collections.uploads(accountId), page, toUpload, { keep }),
  };
}
