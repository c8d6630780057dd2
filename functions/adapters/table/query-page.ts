import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CursorCodec, ResumeKey } from './cursor.js';
import { keyAttributesOf, type Collection } from './keys.js';
import { tableDefinition } from './definition.js';
import type { Page, PageRequest } from '../../domain/pages.js';

export interface TableContext {
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** Resolved only by lists: the key behind it is a secret that other functions are not granted. */
  cursors: () => Promise<CursorCodec>;
}

export interface PageOptions<T> {
  /** Newest first by default (ids are UUIDv7, so sort-key order is creation order); ranked items read oldest first. */
  order?: 'newestFirst' | 'oldestFirst';
  /** Keeps only matching records (conditions the key cannot express, or that depend on the clock). */
  keep?: (record: T) => boolean;
}

/** Items read per DynamoDB Query round while filtering. */
const FILTER_BATCH = 100;
/** Items one filtered page may read before it returns what it has, with a cursor to go on. */
const READ_BUDGET = 1_000;

/**
 * One page of an account-scoped collection; every list in the service goes through here. A page
 * holds at most `limit` records and next_cursor is null exactly when nothing follows. With
 * `keep`, a page stops after reading READ_BUDGET items, so it may hold fewer than `limit`
 * records while next_cursor is not null.
 */
export async function queryPage<T>(
  table: TableContext,
  accountId: string,
  collection: Collection,
  page: PageRequest,
  toRecord: (item: Record<string, unknown>) => T,
  options: PageOptions<T> = {},
): Promise<Page<T>> {
  const { partition, sort } = keyAttributesOf(collection);
  const attributes = [...new Set([tableDefinition.partitionKey, tableDefinition.sortKey, partition, sort])];
  const resumeKeyOf = (item: Record<string, unknown>): ResumeKey => Object.fromEntries(attributes.map((a) => [a, String(item[a])]));
  const cursors = await table.cursors();
  const encode = (key: ResumeKey) => cursors.encode(accountId, collection.prefix, key);

  let startKey: ResumeKey | undefined = page.cursor ? cursors.decode(accountId, collection, page.cursor) : undefined;
  const records: T[] = [];
  let resumeAfter: ResumeKey | undefined;
  let read = 0;
  for (;;) {
    const result = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        ...(collection.index ? { IndexName: collection.index } : {}),
        // BETWEEN the lower bound and the end of the prefix: begins_with, narrowed by `from`.
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': partition, '#sk': sort },
        ExpressionAttributeValues: { ':pk': collection.PK, ':from': collection.from ?? collection.prefix, ':to': `${collection.prefix}\uffff` },
        ScanIndexForward: options.order === 'oldestFirst',
        // Unfiltered, one extra item tells whether another page exists.
        Limit: options.keep ? FILTER_BATCH : page.limit + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      const record = toRecord(item);
      if (!options.keep || options.keep(record)) {
        // A match beyond the page: there is a next page, resuming after the last record returned.
        if (records.length === page.limit) return { items: records, nextCursor: encode(resumeAfter ?? resumeKeyOf(item)) };
        records.push(record);
      }
      resumeAfter = resumeKeyOf(item);
      read += 1;
    }
    if (!result.LastEvaluatedKey) return { items: records, nextCursor: null };
    startKey = result.LastEvaluatedKey as ResumeKey;
    if (read >= READ_BUDGET && resumeAfter) return { items: records, nextCursor: encode(resumeAfter) };
  }
}

/**
 * Every item of a small collection, oldest first, in as many Query rounds as it takes (for readers
 * that need them all and hold no cursor key, e.g. a webhook fan-out, an account's API keys). Read
 * strongly consistent on the table; GSI1 cannot be.
 */
export async function queryAll<T>(
  table: Pick<TableContext, 'doc' | 'tableName'>,
  collection: Collection,
  map: (item: Record<string, unknown>) => T,
): Promise<T[]> {
  const { partition, sort } = keyAttributesOf(collection);
  const all: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        ...(collection.index ? { IndexName: collection.index } : { ConsistentRead: true }),
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': partition, '#sk': sort },
        ExpressionAttributeValues: { ':pk': collection.PK, ':prefix': collection.prefix },
        ExclusiveStartKey: startKey,
      }),
    );
    all.push(...(result.Items ?? []).map(map));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return all;
}
