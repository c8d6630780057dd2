import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CursorCodec } from './cursor.js';
import type { Page, PageRequest } from '../../domain/ports.js';

export interface TableContext {
  doc: DynamoDBDocumentClient;
  tableName: string;
  cursors: CursorCodec;
}

/**
 * One page of an account-scoped collection in sort-key order: newest first by default (ids are
 * UUIDv7, so SK order is creation order), or oldest first (ranked items). Every list goes through here.
 */
export async function queryPage<T>(
  table: TableContext,
  accountId: string,
  collection: { PK: string; prefix: string },
  page: PageRequest,
  toRecord: (item: Record<string, unknown>) => T,
  order: 'newestFirst' | 'oldestFirst' = 'newestFirst',
): Promise<Page<T>> {
  const startKey = page.cursor ? table.cursors.decode(accountId, collection, page.cursor) : undefined;
  const result = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.PK, ':prefix': collection.prefix },
      ScanIndexForward: order === 'oldestFirst',
      // One extra item tells whether another page exists, so the last page says null exactly.
      Limit: page.limit + 1,
      ExclusiveStartKey: startKey,
    }),
  );
  const found = result.Items ?? [];
  const items = found.slice(0, page.limit);
  const last = items.at(-1);
  const nextCursor =
    found.length > page.limit && last
      ? table.cursors.encode(accountId, collection.prefix, { PK: String(last.PK), SK: String(last.SK) })
      : null;
  return { items: items.map(toRecord), nextCursor };
}

/** Drops the table's key attributes and entity tag, leaving the domain record. */
export function stripKeys(item: Record<string, unknown>): Record<string, unknown> {
  const { PK: _pk, SK: _sk, entity: _entity, ttl: _ttl, ...record } = item;
  return record;
}
