import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import type { LedgerEntry } from '../accounts/model.js';
import type { RunRecord } from './model.js';

/** The ledger entry that gives a run's reserved credits back (the one refund a failed or canceled run gets). */
export const refundEntry = (run: RunRecord): LedgerEntry => ({
  entryId: newId('ledger'),
  credits: run.credits,
  reason: `run_refunded:${run.runId}`,
  createdAt: nowIso(),
});
