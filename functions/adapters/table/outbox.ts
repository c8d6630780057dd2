import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';
import { outboxEntryEntity } from './entities/outbox-entry.js';
import type { Announcement } from '../../domain/events/model.js';
import type { OutboxStore } from '../../domain/events/ports.js';

/**
 * Transaction items that put each announcement in the outbox, into the same transaction as the
 * state change it announces (a repeat of the same event id replaces itself).
 */
export const outboxPuts = (table: TableContext, accountId: string, announcements: readonly Announcement[]) =>
  announcements.map((pending) => ({ Put: { TableName: table.tableName, Item: outboxEntryEntity.item(accountId, pending) } }));

export function dynamoOutboxStore(table: TableContext): OutboxStore {
  return {
    async pending(limit) {
      const result = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :outbox',
          ExpressionAttributeValues: { ':outbox': outboxEntryEntity.indexCollection({}).PK },
          Limit: limit,
        }),
      );
      return (result.Items ?? []).map(outboxEntryEntity.record);
    },
    async remove(accountId, eventId) {
      await table.doc.send(new DeleteCommand({ TableName: table.tableName, Key: outboxEntryEntity.key({ accountId, eventId }) }));
    },
  };
}
