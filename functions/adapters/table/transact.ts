import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';

type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** How one transaction ended: written, or which item's condition refused it. */
export type TransactOutcome = { ok: true } | { ok: false; failedIndex: number };

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
      const reasons = error.CancellationReasons ?? [];
      const failedIndex = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failedIndex >= 0) return { ok: false, failedIndex };
      if (attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));
    }
  }
}
