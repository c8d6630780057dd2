import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoAccountStore } from '../../functions/adapters/table/account-store.js';
import { CursorCodec } from '../../functions/adapters/table/cursor.js';
import { admittedRunsKeys } from '../../functions/adapters/table/entities/admitted-runs.js';
import { runEntity } from '../../functions/adapters/table/entities/run.js';
import { slotQueueEntryEntity } from '../../functions/adapters/table/entities/slot-queue-entry.js';
import { getItem } from '../../functions/adapters/table/operations.js';
import { dynamoRunStore } from '../../functions/adapters/table/run-store.js';
import { dynamoSlotStore } from '../../functions/adapters/table/slot-store.js';
import { createAccount, limitsOf } from '../../functions/domain/accounts/accounts.js';
import { nowIso } from '../../functions/domain/clock.js';
import { newId } from '../../functions/domain/ids.js';
import { queuedRun } from '../../functions/domain/runs/model.js';
import type { AnalysisRef } from '../../functions/domain/runs/ports.js';
import { acquireSlot, releaseSlot, type SchedulingDeps } from '../../functions/domain/runs/scheduling.js';
import { ensureTable } from '../../functions/local/bootstrap.js';
import { localDocumentClient } from '../../functions/local/host.js';
import { startDynamoDbLocal } from '../../functions/local/stand-ins.js';
import { admittedRuns, runParallelTasks } from '../../functions/workflows/admission.js';
import { round } from './client.js';

const ACCOUNTS = 20;
const RUNS_PER_ACCOUNT = 10;
/** The local host's default CONTAINER_TASK_LIMIT is larger; a small one makes the backlog deep. */
const CONTAINER_TASK_LIMIT = 40;
/** A 2-hour source: 12 chunks of 10 minutes, each chunk's task compressed to this many ms. */
const CHUNKS_PER_RUN = 12;
const CHUNK_TASK_MS = 1_000;
/** The AcquireSlot wait's timeout (900 s on AWS), shortened: a run waiting longer re-arms its wait, as on AWS. */
const REARM_MS = 60_000;
const TABLE = 'backlog-bench';
const SUBMISSIONS_PER_SECOND = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queued run of a 2-hour source (only its scheduling state matters here). */
const queuedWork = (ref: AnalysisRef) =>
  queuedRun(
    {
      ...ref,
      scannerId: 'scn_bench',
      scannerVersion: 1,
      scanner: { name: 'bench', instructions: 'scene changes', type: 'find_moments' },
      uploadId: 'upl_bench',
      objectKey: `accounts/${ref.accountId}/sources/${ref.analysisId}`,
      mediaKind: 'video',
      sourceDurationMs: CHUNKS_PER_RUN * 600_000,
      window: null,
      metadata: {},
      credits: 0,
    },
    nowIso(),
  );

export interface BacklogBenchResult {
  runs: number;
  accounts: number;
  planSlotsPerAccount: number;
  containerTaskLimit: number;
  admittedRunsLimit: number;
  completed: number;
  failures: number;
  /** Waits that timed out and re-armed (normal for runs queued longer than REARM_MS; a lost wake-up would show as a run finishing late). */
  waitRearms: number;
  drainSeconds: number;
  maxConcurrentTasks: number;
  maxAdmittedRuns: number;
  /** Accounts (1 = the first to submit) in the order they got their first run. */
  firstRunOrder: string;
  /** How many runs had been granted when the last account got its first one (FIFO across accounts: 1 + 3 x 19 = 58 with 3 slots each). */
  grantsBeforeLastFirstRun: number;
  /** Counters after the drain: admitted runs and slots in use over all accounts (0 and 0: every release happened once). */
  admittedAfter: number;
  slotsInUseAfter: number;
}

/**
 * Issue #26 item 2: 200 long runs from 20 accounts, submitted account by account (the first
 * account's ten before the second's: the order least kind to fairness), drain through the
 * admission code and the table code the hosts run (DynamoDB Local). The workflow is simulated:
 * each run waits at AcquireSlot for its task token as the state machine does, then runs its 12
 * chunk tasks `runParallelTasks` at a time (the chunk Map), then releases as CompleteRun does.
 */
export async function benchBacklog(): Promise<BacklogBenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-bench-backlog-'));
  const dynamoDb = await startDynamoDbLocal(dataDir);
  const doc = localDocumentClient(dynamoDb.endpoint);
  try {
    await ensureTable(doc, TABLE);
    const table = { doc, tableName: TABLE, cursors: () => Promise.resolve(new CursorCodec(randomBytes(32).toString('base64url'))) };
    const accountStore = dynamoAccountStore(table);
    const waiting = new Map<string, (granted: boolean) => void>();
    const deps: SchedulingDeps = {
      runs: dynamoRunStore(table),
      slots: dynamoSlotStore(table),
      accounts: accountStore,
      callbacks: { succeed: (token) => Promise.resolve(waiting.get(token)?.(true)) },
      runCapacity: admittedRuns({ containerTasks: CONTAINER_TASK_LIMIT, transcribeJobs: null }),
    };

    const accounts = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push((await createAccount(accountStore, { plan: 'creator', credits: 0 })).account);
    const accountNumber = new Map(accounts.map((account, i) => [account.accountId, i + 1]));
    // Submission: the run and its queue entry, as the run's creation transaction writes them.
    const refs: AnalysisRef[] = [];
    for (const account of accounts) {
      for (let i = 0; i < RUNS_PER_ACCOUNT; i++) {
        const ref = { accountId: account.accountId, runId: newId('run'), analysisId: newId('analysis') };
        await doc.send(new PutCommand({ TableName: TABLE, Item: runEntity.item(queuedWork(ref)) }));
        await doc.send(new PutCommand({ TableName: TABLE, Item: slotQueueEntryEntity.item(ref) }));
        refs.push(ref);
      }
    }

    let tasks = 0;
    let maxTasks = 0;
    let admitted = 0;
    let maxAdmitted = 0;
    let rearms = 0;
    let completed = 0;
    const grants: string[] = [];
    const runTask = async () => {
      maxTasks = Math.max(maxTasks, ++tasks);
      await sleep(CHUNK_TASK_MS);
      tasks -= 1;
    };
    const workflow = async (ref: AnalysisRef) => {
      for (let attempt = 0; ; attempt++) {
        const token = `${ref.runId}#${attempt}`;
        const granted = new Promise<boolean>((resolve) => {
          waiting.set(token, resolve);
          setTimeout(() => resolve(false), REARM_MS);
        });
        await acquireSlot(deps, ref, token);
        if (await granted) break;
        rearms += 1;
      }
      grants.push(ref.accountId);
      maxAdmitted = Math.max(maxAdmitted, ++admitted);
      const chunks = Array.from({ length: CHUNKS_PER_RUN }, (_, i) => i);
      // The chunk Map: at most runParallelTasks chunks at once.
      await Promise.all(
        Array.from({ length: runParallelTasks }, async () => {
          while (chunks.shift() !== undefined) await runTask();
        }),
      );
      admitted -= 1;
      await doc.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: runEntity.key(ref),
          UpdateExpression: 'SET #status = :completed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':completed': 'completed' },
        }),
      );
      await releaseSlot(deps, ref);
      completed += 1;
    };

    const started = performance.now();
    const failures: unknown[] = [];
    const outcomes: Promise<void>[] = [];
    // Executions start in submission order, a burst of SUBMISSIONS_PER_SECOND: far faster than
    // runs finish, so the backlog forms at once.
    for (const ref of refs) {
      outcomes.push(workflow(ref).catch((error: unknown) => void failures.push(error)));
      await sleep(1000 / SUBMISSIONS_PER_SECOND);
    }
    await Promise.all(outcomes);
    const drainSeconds = (performance.now() - started) / 1000;
    if (failures.length) console.error('first failure:', failures[0]);

    const firstRuns = [...new Set(grants)];
    const lastFirst = firstRuns.at(-1)!;
    const slotsInUse = await Promise.all(accounts.map(async (account) => (await accountStore.getAccount(account.accountId))?.concurrencyInUse ?? 0));
    return {
      runs: refs.length,
      accounts: ACCOUNTS,
      planSlotsPerAccount: limitsOf(accounts[0]!).concurrency,
      containerTaskLimit: CONTAINER_TASK_LIMIT,
      admittedRunsLimit: deps.runCapacity,
      completed,
      failures: failures.length,
      waitRearms: rearms,
      drainSeconds: round(drainSeconds),
      maxConcurrentTasks: maxTasks,
      maxAdmittedRuns: maxAdmitted,
      firstRunOrder: firstRuns.map((accountId) => accountNumber.get(accountId)).join(' '),
      grantsBeforeLastFirstRun: grants.indexOf(lastFirst) + 1,
      admittedAfter: Number((await getItem(table, admittedRunsKeys.key({})))?.admitted ?? 0),
      slotsInUseAfter: slotsInUse.reduce((sum, inUse) => sum + inUse, 0),
    };
  } finally {
    doc.destroy();
    await dynamoDb.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
