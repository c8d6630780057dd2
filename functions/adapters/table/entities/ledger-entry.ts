import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { LedgerEntry } from '../../../domain/accounts/model.js';

/** One wallet change, written in the same transaction as the change (DESIGN §5). */
export const ledgerEntryEntity = defineEntity({
  name: 'ledger',
  keys: { PK: ACCOUNT_PARTITION, SK: 'LEDGER#{entryId}' },
  toItem: (accountId: string, entry: LedgerEntry) => ({ fields: { accountId, ...entry }, attributes: { accountId, ...entry } }),
  toRecord: ({ accountId: _account, ...entry }) => entry as unknown as LedgerEntry,
});
