/**
 * The wallet's ledger as the table holds it (DESIGN §5: every balance change is one transaction
 * with its ledger entry), read from a running local host's DynamoDB Local, and the consistency
 * rules the reliability suite checks: the entries add up to the balance, and every piece of work
 * was reserved once and refunded at most once, by exactly what it reserved.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerEntryEntity } from '../../functions/adapters/table/entities/ledger-entry.js';
import { localDocumentClient, readRunningHost } from '../../functions/local/host.js';

export interface LedgerEntry {
  entryId: string;
  credits: number;
  /** `account_opened`, `credits_added`, or `<kind>_<reserved|refunded>:<id>` for work. */
  reason: string;
  createdAt: string;
}

/** Every ledger entry of the account, oldest first (entry ids are time-ordered), strongly consistent. */
export async function ledgerOf(dataDir: string, accountId: string): Promise<LedgerEntry[]> {
  const running = await readRunningHost(dataDir);
  if (!running) throw new Error(`no local host is running on ${dataDir}`);
  const doc = localDocumentClient(running.dynamodb_endpoint);
  const { PK, prefix } = ledgerEntryEntity.collection({ accountId });
  const entries: LedgerEntry[] = [];
  try {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: running.table,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: { ':pk': PK, ':sk': prefix },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? [])
        entries.push({ entryId: String(item.entryId), credits: Number(item.credits), reason: String(item.reason), createdAt: String(item.createdAt) });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  } finally {
    doc.destroy();
  }
  return entries.sort((a, b) => a.entryId.localeCompare(b.entryId));
}

export interface WorkLedger {
  /** Credits reserved (a positive number). */
  reserved: number;
  /** Credits given back; 0 when nothing was refunded. */
  refunded: number;
  reservations: number;
  refunds: number;
}

/** The ledger per piece of work (`run_reserved:run_…` and `run_refunded:run_…` are one piece). */
export function ledgerByWork(entries: readonly LedgerEntry[]): Map<string, WorkLedger> {
  const byWork = new Map<string, WorkLedger>();
  for (const entry of entries) {
    const match = /^[a-z_]+?_(reserved|refunded):(.+)$/.exec(entry.reason);
    if (!match) continue;
    const [, action, id] = match as unknown as [string, 'reserved' | 'refunded', string];
    const work = byWork.get(id) ?? { reserved: 0, refunded: 0, reservations: 0, refunds: 0 };
    if (action === 'reserved') {
      work.reserved += -entry.credits;
      work.reservations += 1;
    } else {
      work.refunded += entry.credits;
      work.refunds += 1;
    }
    byWork.set(id, work);
  }
  return byWork;
}

/**
 * What is wrong with the ledger, as sentences (empty when nothing is): the entries must add up to
 * `balance`, each piece of work must have one reservation and at most one refund of exactly the
 * credits reserved, and no running total may go below zero.
 */
export function ledgerProblems(entries: readonly LedgerEntry[], balance: number): string[] {
  const problems: string[] = [];
  const total = entries.reduce((sum, entry) => sum + entry.credits, 0);
  if (total !== balance) problems.push(`the entries add up to ${total}, the balance is ${balance}`);
  let running = 0;
  for (const entry of entries) {
    running += entry.credits;
    if (running < 0) problems.push(`the running total goes below zero (${running}) at ${entry.entryId} (${entry.reason})`);
  }
  for (const [id, work] of ledgerByWork(entries)) {
    if (work.reservations !== 1) problems.push(`${id} has ${work.reservations} reservations`);
    if (work.refunds > 1) problems.push(`${id} was refunded ${work.refunds} times`);
    if (work.refunds === 1 && work.refunded !== work.reserved) problems.push(`${id} reserved ${work.reserved} and was refunded ${work.refunded}`);
  }
  return problems;
}
