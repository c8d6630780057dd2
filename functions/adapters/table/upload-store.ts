import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type TableContext } from './query-page.js';
import { getRecord, transact } from './operations.js';
import { outboxPuts } from './outbox.js';
import { uploadEntity } from './entities/upload.js';
import type { UploadStore } from '../../domain/uploads/ports.js';

export function dynamoUploadStore(table: TableContext): UploadStore {
  const { doc, tableName } = table;

  return {
    async create(accountId, upload, expireAtEpochSeconds) {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: uploadEntity.item(accountId, upload, expireAtEpochSeconds),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    get: (accountId, uploadId) => getRecord(table, uploadEntity, { accountId, uploadId }),

    finish: async (accountId, next, expireAtEpochSeconds, announcements) =>
      (
        await transact(table, [
          {
            Put: {
              TableName: tableName,
              Item: uploadEntity.item(accountId, next, expireAtEpochSeconds),
              // Only a still-pending upload moves.
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':pending': 'pending' },
            },
          },
          ...outboxPuts(table, accountId, announcements),
        ])
      ).ok,

    list: (accountId, page, keep) => queryPage(table, accountId, uploadEntity.collection({ accountId }), page, uploadEntity.record, { keep }),
  };
}
