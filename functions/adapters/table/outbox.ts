import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { indexKeys, keys, OUTBOX_PARTITION } from './keys.js';
import type { TableContext } from './query-page.js';
import type { Announcement } from '../../domain/events/model.js';
import type { OutboxStore } from '../../domain/events/ports.js';

/** The entity name of outbox items: the AWS relay's stream filter matches on it. */
export const OUTBOX_ENTITY = 'outbox';

/** An outbox item as it is written, into the same transaction as the state change it announces. */
export const outboxItem = (accountId: string, pending: Announcement) => ({
  ...keys.outboxEntry(accountId, pending.eventId),
  ...indexKeys.pendingOutboxEntry(pending.createdAt, pending.eventId),
  entity: OUTBOX_ENTITY,
  accountId,
  ...pending,
});

/** Transaction items that put each announcement in the outbox (a repeat of the same event id replaces itself). */
export const outboxPuts = (table: TableContext, accountId: string, announcements: readonly Announcement[]) =>
  announcements.map((pending) => ({ Put: { TableName: table.tableName, Item: outboxItem(accountId, pending) } }));

/** An outbox item read back (from the table or a stream image). */
export const announcementOf = (item: Record<string, unknown>): { accountId: string; announcement: Announcement } => {
  const { eventId, type, subject, createdAt, accountId } = item as unknown as Announcement & { accountId: string };
  return { accountId, announcement: { eventId, type, subject, createdAt } };
};

export function dynamoOutboxStore(table: TableContext): OutboxStore {
  return {
    async pending(limit) {
      const result = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :outbox',
          ExpressionAttributeValues: { ':outbox': OUTBOX_PARTITION },
          Limit: limit,
        }),
      );
      return (result.Items ?? []).map(announcementOf);
    },
    async remove(accountId, eventId) {
      await table.doc.send(new DeleteCommand({ TableName: table.tableName, Key: keys.outboxEntry(accountId, eventId) }));
    },
  };
}
