import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, TransactWriteCommand, type TransactWriteCommandInput, type UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from './keys.js';
import type { Item } from './entity.js';
import type { TableContext } from './query-page.js';
import { ledgerEntryEntity } from './entities/ledger-entry.js';
import type { LedgerEntry } from '../../domain/accounts/model.js';

/** The table operations every store shares. */

/** A strongly consistent read: balances, states and revocations are read as just written. */
export async function getItem(table: TableContext, key: TableKey): Promise<Item | undefined> {
  return (await table.doc.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;
}

/** One entity's record, read strongly consistent. */
export async function getRecord<F, R>(
  table: TableContext,
  entity: { key: (fields: F) => TableKey; record: (item: Item) => R },
  fields: F,
): Promise<R | undefined> {
  const item = await getItem(table, entity.key(fields));
  return item && entity.record(item);
}

/** A conditional Put or Update; a failed condition is an answer (false), not an error. */
export async function conditionalWrite(table: TableContext, command: PutCommand | UpdateCommand): Promise<boolean> {
  try {
    // Either command, one client: the union only confuses the overloads of send().
    await (command instanceof PutCommand ? table.doc.send(command) : table.doc.send(command));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** How one transaction ended: written, or which item's condition refused it. */
type TransactOutcome = { ok: true } | { ok: false; failedIndex: number };

const MAX_ATTEMPTS = 8;

/**
 * Runs a conditional transaction. Conflicts with concurrent transactions on the same items
 * (many runs debiting one wallet) are retried with jittered backoff; a failed condition is
 * an answer, reported with the index of the item whose condition failed.
 */
export async function transact(table: TableContext, items: TransactItems): Promise<TransactOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      await table.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const failedIndex = (error.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failedIndex >= 0) return { ok: false, failedIndex };
      if (attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));
    }
  }
}

const BATCH_WRITE_SIZE = 25;

/** Puts many items (unconditionally, so a retry replaces rather than duplicates), resending what DynamoDB leaves unprocessed. */
export async function putAll(table: TableContext, items: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH_WRITE_SIZE) {
    let requests = { [table.tableName]: items.slice(i, i + BATCH_WRITE_SIZE).map((Item) => ({ PutRequest: { Item } })) };
    for (let attempt = 0; Object.keys(requests).length; attempt++) {
      const result = await table.doc.send(new BatchWriteCommand({ RequestItems: requests }));
      requests = (result.UnprocessedItems ?? {}) as typeof requests;
      if (attempt > 8) throw new Error('DynamoDB kept items unprocessed');
      if (Object.keys(requests).length) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
  }
}

/** The ledger entry that goes into the same transaction as every wallet change (DESIGN §5). */
export const ledgerPut = (table: TableContext, accountId: string, entry: LedgerEntry) => ({
  Put: {
    TableName: table.tableName,
    Item: ledgerEntryEntity.item(accountId, entry),
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});
