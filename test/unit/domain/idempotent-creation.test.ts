/**
 * Creations under an Idempotency-Key (runs, one-off analyses, batches) against fakes of their
 * ports: the ids are claimed once per (account, purpose, key) and keep their time order; a retry
 * after an attempt that died between its reservation and its answer finds that attempt's work
 * and answers it, reserving nothing more; a lost race under the same key answers the winner's.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoIdClaims } from '../../../functions/adapters/table/id-claims.js';
import type { IdClaims } from '../../../functions/domain/id-claims.js';
import { idPattern } from '../../../functions/domain/ids.js';
import type { ApiError } from '../../../functions/domain/errors.js';
import { submitRun, type SubmitRunDeps } from '../../../functions/domain/runs/submit.js';
import { submitOneOff, type OneOffDeps } from '../../../functions/domain/analyses/one-off.js';
import { submitBatch, type BatchDeps } from '../../../functions/domain/batches/submit.js';
import type { AnalysisRecord, RunRecord } from '../../../functions/domain/runs/model.js';
import type { ReservationOutcome, RunStore } from '../../../functions/domain/runs/ports.js';
import type { BatchItemRecord, BatchRecord } from '../../../functions/domain/batches/model.js';
import type { BatchStore } from '../../../functions/domain/batches/ports.js';
import type { ScannerRecord } from '../../../functions/domain/scanners/model.js';
import { analysisCreateSchema } from '../../../functions/resources/analyses/request.js';
import { batchCreateSchema } from '../../../functions/resources/batches/request.js';
import { ACCOUNT_ID, OTHER_ACCOUNT_ID, TABLE_NAME, testAccount } from '../../helpers/unit-fixtures.js';

const KEY = 'order-2026-0001';
const codeOf = async (promise: Promise<unknown>) =>
  (
    (await promise.then(
      () => undefined,
      (error: unknown) => error,
    )) as ApiError | undefined
  )?.code;

/** Claims as the table keeps them: the first proposal per (account, purpose, key) wins. */
function memoryClaims(): IdClaims {
  const stored = new Map<string, Record<string, string>>();
  return {
    claim<T extends Record<string, string>>(accountId: string, purpose: string, key: string, proposed: T): Promise<T> {
      const id = `${accountId}|${purpose}|${key}`;
      if (!stored.has(id)) stored.set(id, proposed);
      return Promise.resolve(stored.get(id) as T);
    },
  };
}

/** A wallet and the run/analysis records, with the transaction's order of checks: the debit, then the puts. */
function memoryRuns(balance: number) {
  const wallet = { balance, reservations: 0 };
  const runs = new Map<string, RunRecord>();
  const analyses = new Map<string, AnalysisRecord>();
  const store = {
    createWithReservation(run: RunRecord, analysis: AnalysisRecord): Promise<ReservationOutcome> {
      if (wallet.balance < run.credits) return Promise.resolve('insufficient_credits');
      if (runs.has(run.runId) || analyses.has(analysis.analysisId)) return Promise.resolve('already_created');
      wallet.balance -= run.credits;
      wallet.reservations++;
      runs.set(run.runId, run);
      analyses.set(analysis.analysisId, analysis);
      return Promise.resolve('created');
    },
    getRun: (_accountId: string, runId: string) => Promise.resolve(runs.get(runId)),
    getAnalysis: (_accountId: string, analysisId: string) => Promise.resolve(analyses.get(analysisId)),
    failAndRefund: () => Promise.resolve(true),
  } as unknown as RunStore;
  return { store, wallet, runs, analyses };
}

const scanner: ScannerRecord = {
  scannerId: 'scn_1',
  version: 1,
  name: 'Cuts',
  type: 'find_moments',
  instructions: 'Find the cuts',
  createdAt: 'x',
  updatedAt: 'x',
};

function runDeps(balance = 10) {
  const memory = memoryRuns(balance);
  const started: string[] = [];
  const deps: SubmitRunDeps = {
    runs: memory.store,
    claims: memoryClaims(),
    scanners: { get: () => Promise.resolve(scanner) } as unknown as SubmitRunDeps['scanners'],
    deploymentMaxObservations: 100,
    findSource: (_accountId, uploadId) => Promise.resolve({ uploadId, mediaKind: 'video', durationMs: 150_000, objectKey: `k/${uploadId}` }),
    workflows: {
      startAnalysis: (ref) => {
        started.push(ref.runId);
        return Promise.resolve();
      },
    },
  };
  return { deps, started, ...memory };
}

describe('id claims in the table', () => {
  const doc = mockClient(DynamoDBDocumentClient);
  const claims = dynamoIdClaims(
    {
      doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      tableName: TABLE_NAME,
      cursors: () => Promise.reject(new Error('no lists here')),
    },
    3600,
    () => 1_000_000_000,
  );
  beforeEach(() => doc.reset());
  afterAll(() => doc.restore());

  it('stores the first proposal under the account, purpose and a hash of the key, taking a missing or expired claim only', async () => {
    doc.on(PutCommand).resolves({});
    expect(await claims.claim(ACCOUNT_ID, 'run', KEY, { runId: 'run_a' })).toEqual({ runId: 'run_a' });
    const put = doc.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.Item).toMatchObject({
      PK: `ACCT#${ACCOUNT_ID}`,
      SK: expect.stringMatching(/^IDCLAIM#run#[0-9a-f]{64}$/) as unknown,
      ids: { runId: 'run_a' },
      ttl: 1_000_000 + 3600,
    });
    expect(put.ConditionExpression).toBe('attribute_not_exists(PK) OR #ttl < :now');
    expect(put.ExpressionAttributeValues).toEqual({ ':now': 1_000_000 });
    expect(JSON.stringify(put)).not.toContain(KEY);
  });

  it('answers the ids claimed first when the claim exists, read strongly consistent', async () => {
    doc.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
    doc.on(GetCommand).resolves({ Item: { ids: { runId: 'run_first' } } });
    expect(await claims.claim(ACCOUNT_ID, 'run', KEY, { runId: 'run_second' })).toEqual({ runId: 'run_first' });
    expect(doc.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(true);
  });

  it('keeps accounts, purposes and keys apart', async () => {
    doc.on(PutCommand).resolves({});
    await claims.claim(ACCOUNT_ID, 'run', KEY, { runId: 'run_a' });
    await claims.claim(OTHER_ACCOUNT_ID, 'run', KEY, { runId: 'run_a' });
    await claims.claim(ACCOUNT_ID, 'batch', KEY, { batchId: 'bat_a' });
    await claims.claim(ACCOUNT_ID, 'run', `${KEY}-2`, { runId: 'run_a' });
    const keys = doc.commandCalls(PutCommand).map((c) => `${c.args[0].input.Item!.PK as string}/${c.args[0].input.Item!.SK as string}`);
    expect(new Set(keys).size).toBe(4);
  });
});

describe('scanner runs', () => {
  it('a retry after a crash that followed the reservation answers the same run and reserves nothing more', async () => {
    const { deps, wallet, runs, started } = runDeps();
    const first = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY);
    expect(first.runId).toMatch(idPattern('run'));
    expect(first.analysisId).toMatch(idPattern('analysis'));
    // What a crash before the answer leaves: the run reserved (queued); the retry does not know its id.
    const retry = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY);
    expect(retry).toEqual(first);
    expect({ balance: wallet.balance, reservations: wallet.reservations, runs: runs.size }).toEqual({ balance: 7, reservations: 1, runs: 1 });
    // Still queued: its workflow is started again, which is idempotent by name.
    expect(started).toEqual([first.runId, first.runId]);
  });

  it('answers the run even when the wallet could no longer pay for it, and starts nothing for a run past queued', async () => {
    const { deps, runs, started } = runDeps(3);
    const first = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY);
    runs.set(first.runId, { ...first, status: 'processing' });
    expect((await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY)).runId).toBe(first.runId);
    expect(started).toEqual([first.runId]);
  });

  it('a concurrent attempt that loses the reservation under the same key answers the winner', async () => {
    const { deps, runs, wallet } = runDeps();
    const claimed = await deps.claims.claim(ACCOUNT_ID, 'run', KEY, {
      runId: 'run_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
      analysisId: 'ana_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
    });
    const store = deps.runs;
    let reads = 0;
    deps.runs = {
      ...deps.runs,
      getRun: (accountId, runId) => {
        // The winner reserves between the loser's first look and its reservation.
        if (reads++ === 0) {
          runs.set(runId, { runId, accountId, analysisId: claimed.analysisId, status: 'dispatched' } as RunRecord);
          return Promise.resolve(undefined);
        }
        return store.getRun(accountId, runId);
      },
    };
    expect((await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY)).status).toBe('dispatched');
    expect(wallet.reservations).toBe(0);
  });

  it('without a key, each request is new work with fresh, time-ordered ids', async () => {
    const { deps, wallet } = runDeps();
    const a = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' });
    const b = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' });
    expect(a.runId < b.runId).toBe(true);
    expect(wallet.reservations).toBe(2);
  });

  it('other keys and other accounts get other runs', async () => {
    const { deps, wallet } = runDeps(100);
    const ids = new Set([
      (await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY)).runId,
      (await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, `${KEY}-2`)).runId,
      (await submitRun(deps, testAccount({ accountId: OTHER_ACCOUNT_ID }), 'scn_1', { upload_id: 'upl_1' }, KEY)).runId,
    ]);
    expect(ids.size).toBe(3);
    expect(wallet.reservations).toBe(3);
  });

  it('a retry whose earlier attempt died before reserving creates the run under the claimed ids', async () => {
    const { deps, wallet } = runDeps();
    const claimed = await deps.claims.claim(ACCOUNT_ID, 'run', KEY, {
      runId: 'run_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
      analysisId: 'ana_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
    });
    const run = await submitRun(deps, testAccount(), 'scn_1', { upload_id: 'upl_1' }, KEY);
    expect({ runId: run.runId, analysisId: run.analysisId }).toEqual(claimed);
    expect(wallet.reservations).toBe(1);
  });
});

describe('one-off analyses', () => {
  function oneOffDeps(balance = 10) {
    const memory = memoryRuns(balance);
    let probes = 0;
    const deps: OneOffDeps = {
      runs: memory.store,
      claims: memoryClaims(),
      allowLoopback: false,
      sources: {
        preflight: () => {
          probes++;
          return Promise.resolve({ mediaKind: 'video', durationMs: 600_000, sizeBytes: 1024 ** 2, title: 'Episode' });
        },
      },
      workflows: { startAnalysis: () => Promise.resolve() },
    };
    return { deps, probes: () => probes, ...memory };
  }
  const account = testAccount({ trustedHosts: ['media.example.com'], creditsBalance: 10 });
  const body = analysisCreateSchema.parse({ source_url: 'https://media.example.com/episode.mp4', analysis_start_seconds: 0, analysis_end_seconds: 61 });

  it('a retry after a crash answers the same analysis without probing or reserving again', async () => {
    const { deps, wallet, probes } = oneOffDeps();
    const first = await submitOneOff(deps, account, body, KEY);
    // The account as read at the retry: already debited, and too poor for a second reservation.
    const retry = await submitOneOff(deps, { ...account, creditsBalance: 1 }, body, KEY);
    expect(retry).toEqual(first);
    expect({ reservations: wallet.reservations, balance: wallet.balance, probes: probes() }).toEqual({ reservations: 1, balance: 8, probes: 1 });
  });

  it('runs and one-off analyses under one key are claimed apart (the executor refuses the reuse first)', async () => {
    const { deps } = oneOffDeps();
    const claimedForRun = await deps.claims.claim(ACCOUNT_ID, 'run', KEY, { runId: 'run_x', analysisId: 'ana_x' });
    expect((await submitOneOff(deps, account, body, KEY)).analysisId).not.toBe(claimedForRun.analysisId);
  });

  it('a concurrent attempt that loses the reservation answers the winner', async () => {
    const { deps, analyses } = oneOffDeps();
    const claimed = await deps.claims.claim(ACCOUNT_ID, 'one_off', KEY, {
      runId: 'run_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
      analysisId: 'ana_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b',
    });
    const store = deps.runs;
    let reads = 0;
    deps.runs = {
      ...deps.runs,
      getAnalysis: (accountId, analysisId) => {
        // The winner reserves between the loser's first look and its reservation.
        if (reads++ === 0) {
          analyses.set(analysisId, { analysisId, accountId, status: 'queued' } as AnalysisRecord);
          return Promise.resolve(undefined);
        }
        return store.getAnalysis(accountId, analysisId);
      },
    };
    expect((await submitOneOff(deps, account, body, KEY)).analysisId).toBe(claimed.analysisId);
  });
});

describe('batches', () => {
  function batchDeps() {
    const batches = new Map<string, { batch: BatchRecord; items: BatchItemRecord[] }>();
    let starts = 0;
    const store = {
      create: (batch: BatchRecord, items: BatchItemRecord[]) => {
        if (batches.has(batch.batchId)) return Promise.reject(new Error('ConditionalCheckFailed'));
        batches.set(batch.batchId, { batch, items });
        return Promise.resolve();
      },
      get: (_accountId: string, batchId: string) => Promise.resolve(batches.get(batchId)?.batch),
      listItems: (_accountId: string, batchId: string, offset: number, limit: number) =>
        Promise.resolve(batches.get(batchId)?.items.slice(offset, offset + limit) ?? []),
    } as unknown as BatchStore;
    const deps: BatchDeps = {
      batches: store,
      claims: memoryClaims(),
      scanners: { get: () => Promise.resolve(scanner) } as unknown as BatchDeps['scanners'],
      findSource: (_accountId, uploadId) => Promise.resolve({ uploadId, mediaKind: 'video', durationMs: 60_000, objectKey: `k/${uploadId}` }),
      batchWorkflows: {
        startBatch: () => {
          starts++;
          return Promise.resolve();
        },
      },
      batchesEnabled: true,
    };
    return { deps, batches, starts: () => starts };
  }
  const body = batchCreateSchema.parse({
    items: [
      { client_id: 'a', scanner_id: 'scn_1', upload_id: 'upl_1' },
      { client_id: 'b', scanner_id: 'scn_1', upload_id: 'upl_2' },
    ],
  });

  it('a retry after a crash answers the same batch, stored once, its unsettled workflow started again', async () => {
    const { deps, batches, starts } = batchDeps();
    const first = await submitBatch(deps, testAccount(), body, 100, KEY);
    expect(first.batch.batchId).toMatch(idPattern('batch'));
    const retry = await submitBatch(deps, testAccount(), body, 100, KEY);
    expect(retry).toEqual(first);
    expect(batches.size).toBe(1);
    expect(starts()).toBe(2);
    expect((await submitBatch(deps, testAccount(), body, 100)).batch.batchId).not.toBe(first.batch.batchId);
  });

  it('a settled batch is answered as it is, nothing started', async () => {
    const { deps, batches, starts } = batchDeps();
    const first = await submitBatch(deps, testAccount(), body, 100, KEY);
    batches.get(first.batch.batchId)!.batch.completedAt = 'done';
    expect((await submitBatch(deps, testAccount(), body, 100, KEY)).batch.completedAt).toBe('done');
    expect(starts()).toBe(1);
  });

  it('a retry that finds its workflow still unstartable answers 503 and may retry again', async () => {
    const { deps } = batchDeps();
    await submitBatch(deps, testAccount(), body, 100, KEY);
    deps.batchWorkflows = { startBatch: () => Promise.reject(new Error('down')) };
    expect(await codeOf(submitBatch(deps, testAccount(), body, 100, KEY))).toBe('queue_unavailable');
  });
});
