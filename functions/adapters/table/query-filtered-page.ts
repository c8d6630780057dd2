import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from './keys.js';
import type { TableContext } from './query-page.js';
import type { Page, PageRequest } from '../../domain/ports.js';

/** Items read per DynamoDB Query round while filtering. */
const BATCH = 100;
/** Items one filtered page may read before it returns what it has, with a cursor to go on. */
const READ_BUDGET = 1_000;

/**
 * `queryPage` with a filter applied in code (for conditions that depend on the clock, such as an
 * upload's derived status). Same order, same signed cursors. A page holds at most `limit`
 * matches; after reading READ_BUDGET items it stops early, so a page may hold fewer than `limit`
 * items while next_cursor is not null. next_cursor is null only when the collection is exhausted.
 */
export async function queryFilteredPage<T>(
  table: TableContext,
  accountId: string,
  collection: { PK: string; prefix: string },
  page: PageRequest,
  toRecord: (item: Record<string, unknown>) => T,
  keep: (record: T) => boolean,
): Promise<Page<T>> {
  let startKey: Record<string, unknown> | undefined = page.cursor ? { ...table.cursors.decode(accountId, collection, page.cursor) } : undefined;
  const items: T[] = [];
  let resumeAfter: TableKey | undefined;
  let read = 0;

  for (;;) {
    const result = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.PK, ':prefix': collection.prefix },
        ScanIndexForward: false,
        Limit: BATCH,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      const key = { PK: String(item.PK), SK: String(item.SK) };
      const record = toRecord(item);
      if (keep(record)) {
        // A match beyond the page: there is a next page, resuming after the last item returned.
        if (items.length === page.limit) return { items, nextCursor: encode(table, accountId, collection, resumeAfter ?? key) };
        items.push(record);
      }
      resumeAfter = key;
      read += 1;
    }
    if (!result.LastEvaluatedKey) return { items, nextCursor: null };
    startKey = result.LastEvaluatedKey;
    if (read >= READ_BUDGET && resumeAfter) return { items, nextCursor: encode(table, accountId, collection, resumeAfter) };
  }
}

const encode = (table: TableContext, accountId: string, collection: { prefix: string }, key: TableKey): string =>
  table.cursors.encode(accountId, collection.prefix, key);
