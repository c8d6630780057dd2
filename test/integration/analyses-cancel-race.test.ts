/**
 * SPEC: a cancel racing the slot grant ends in exactly one of the two outcomes. Both are one
 * DynamoDB transaction conditioned on the run still waiting; here they race for real on the shared
 * host's DynamoDB Local, through the same stores the API and the workflow use.
 */
import { describe, expect, inject, test } from 'vitest';
import { dynamoAccountStore } from '../../functions/adapters/table/account-store.js';
import { dynamoRunStore } from '../../functions/adapters/table/run-store.js';
import { dynamoSlotStore } from '../../functions/adapters/table/slot-store.js';
import { nowIso } from '../../functions/domain/clock.js';
import { newId } from '../../functions/domain/ids.js';
import { refundEntry } from '../../functions/domain/runs/billing.js';
import { queuedAnalysis, queuedRun, type AnalysisRecord, type RunRecord } from '../../functions/domain/runs/model.js';
import { localDocumentClient, readRunningHost } from '../../functions/local/host.js';
import { createAccount } from '../helpers/api.js';

const RACES = 12;
const CREDITS_EACH = 2;

async function stores() {
  const running = await readRunningHost(inject('dataDir'));
  if (!running) throw new Error('the shared host wrote no running.json');
  const table = { doc: localDocumentClient(running.dynamodb_endpoint), tableName: running.table, cursors: () => Promise.reject(new Error('no lists here')) };
  return { runs: dynamoRunStore(table), slots: dynamoSlotStore(table), accounts: dynamoAccountStore(table) };
}

function queuedWork(accountId: string): { run: RunRecord; analysis: AnalysisRecord } {
  const now = nowIso();
  const analysisId = newId('analysis');
  const run = queuedRun(
    {
      runId: newId('run'),
      accountId,
      analysisId,
      scannerId: '',
      scannerVersion: 0,
      scanner: { name: 'race', instructions: 'scene changes', type: 'find_moments' },
      uploadId: '',
      objectKey: `accounts/${accountId}/sources/${analysisId}`,
      mediaKind: 'video',
      sourceDurationMs: 90_000,
      window: { startMs: 0, endMs: 90_000 },
      metadata: {},
      credits: CREDITS_EACH,
    },
    now,
  );
  return { run, analysis: queuedAnalysis({ analysisId, accountId, runId: run.runId, kind: 'one_off', reservedCredits: CREDITS_EACH }, now) };
}

describe('cancel racing the slot grant', () => {
  test(`in ${RACES} races, exactly one of cancel and grant wins each time, and the wallet matches the winners`, async () => {
    const { runs, slots, accounts } = await stores();
    const { accountId } = await createAccount({ plan: 'enterprise', credits: RACES * CREDITS_EACH });
    let cancels = 0;
    const granted: RunRecord[] = [];
    for (let i = 0; i < RACES; i++) {
      const { run, analysis } = queuedWork(accountId);
      expect(
        await runs.createWithReservation(run, analysis, { entryId: newId('ledger'), credits: -run.credits, reason: 'race', createdAt: run.createdAt }),
      ).toBe('created');
      const entry = await slots.waitingEntry(accountId, run.runId);
      expect(entry).toBeDefined();
      const [canceled, grant] = await Promise.all([
        runs.cancelQueued(run, { code: 'analysis_canceled', message: 'race' }, refundEntry(run), nowIso(), []),
        slots.grant(accountId, entry!, { account: RACES + 1, capacity: RACES + 1 }, nowIso()),
      ]);
      expect(canceled, `race ${i}`).toBe(grant !== 'granted');
      const [storedRun, storedAnalysis] = await Promise.all([runs.getRun(accountId, run.runId), runs.getAnalysis(accountId, analysis.analysisId)]);
      if (canceled) {
        cancels += 1;
        expect(storedRun).toMatchObject({ status: 'failed', error: { code: 'analysis_canceled' } });
        expect(storedAnalysis).toMatchObject({ status: 'canceled', billing: 'refunded' });
        expect(await slots.waitingEntry(accountId, run.runId)).toBeUndefined();
      } else {
        expect(storedRun).toMatchObject({ status: 'dispatched', slot: 'held' });
        expect(storedAnalysis).toMatchObject({ status: 'dispatched', billing: 'reserved' });
        // Too late now: the work holds its slot.
        expect(await runs.cancelQueued(storedRun!, { code: 'analysis_canceled', message: 'late' }, refundEntry(run), nowIso(), [])).toBe(false);
        granted.push(run);
      }
    }
    const account = await accounts.getAccount(accountId);
    expect(account?.creditsBalance).toBe(cancels * CREDITS_EACH);
    expect(account?.concurrencyInUse).toBe(RACES - cancels);
    // The granted work never runs: its share of the shared host's capacity goes back for the other tests.
    for (const run of granted) await slots.release(run, nowIso());
  });
});
