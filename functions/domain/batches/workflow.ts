import { ApiError, notFound } from '../errors.js';
import { limitsOf, requireAccount } from '../accounts/accounts.js';
import { nowIso } from '../clock.js';
import type { AccountStore } from '../accounts/ports.js';
import type { ScannerStore } from '../scanners/ports.js';
import type { RunRecord, BatchItemRef } from '../runs/model.js';
import type { RunStore, RunnableSourceLookup, TaskTokenCallbacks, WorkflowStarter } from '../runs/ports.js';
import { createRun } from '../runs/create.js';
import { batchStatusOf, isTerminalItem, type BatchItemRecord, type BatchRecord } from './model.js';
import type { BatchRef, BatchStore } from './ports.js';
import { getBatch, markBatchCompleted } from './submit.js';

/**
 * The batch workflow's steps (statemachines/batch.asl.json): plan, then for each item (at most the
 * account's concurrency at a time) spawn its run and wait for it to end, then finish. Every step
 * is safe to repeat: an item becomes a run exactly once, whatever is retried or resumed.
 */
export interface BatchWorkflowDeps {
  batches: BatchStore;
  runs: RunStore;
  scanners: ScannerStore;
  accounts: AccountStore;
  findSource: RunnableSourceLookup;
  workflows: WorkflowStarter;
  callbacks: TaskTokenCallbacks;
}

class BatchNotSettled extends Error {
  override readonly name = 'BatchNotSettled';
}

async function requireItem(batches: BatchStore, ref: BatchItemRef): Promise<BatchItemRecord> {
  const item = await batches.getItem(ref);
  if (!item) throw notFound('batch item');
  return item;
}

const allItems = (batches: BatchStore, ref: BatchRef, total: number) => batches.listItems(ref.accountId, ref.batchId, 0, total);

/**
 * The items still to settle, and how many may be in flight at once: the account's concurrency,
 * so a batch never holds more than its account may run and its queued items are real.
 */
export async function planBatch(deps: BatchWorkflowDeps, ref: BatchRef): Promise<{ items: number[]; maxConcurrency: number }> {
  const batch = await getBatch(deps.batches, ref.accountId, ref.batchId);
  const account = await requireAccount(deps.accounts, ref.accountId);
  const items = await allItems(deps.batches, ref, batch.counters.total);
  return { items: items.filter((i) => !isTerminalItem(i.status)).map((i) => i.index), maxConcurrency: Math.max(1, limitsOf(account).concurrency) };
}

/** Turns a queued item into its run (reserving its credits) and starts the run's workflow; `started` is false when the item settled instead. */
export async function spawnItemRun(deps: BatchWorkflowDeps, ref: BatchItemRef): Promise<{ started: boolean }> {
  for (;;) {
    const item = await requireItem(deps.batches, ref);
    if (item.status === 'processing') {
      // Spawned already (a retry, or a resumed batch): make sure its workflow runs; starting is idempotent.
      await deps.workflows.startAnalysis({ accountId: ref.accountId, runId: item.runId!, analysisId: item.analysisId! });
      return { started: true };
    }
    if (item.status !== 'queued') return { started: false };

    const batch = await getBatch(deps.batches, ref.accountId, ref.batchId);
    if (batch.cancelRequested) {
      await deps.batches.transition(ref, 'cancel', {}, nowIso());
      continue;
    }
    const reject = async (code: string, message: string) => {
      await deps.batches.transition(ref, 'reject', { error: { code, message } }, nowIso());
      return { started: false };
    };
    const scanner = await deps.scanners.getVersion(ref.accountId, item.scannerId, item.scannerVersion);
    if (!scanner) return reject('scanner_not_found', 'The pinned scanner version no longer exists.');
    let source;
    try {
      source = await deps.findSource(ref.accountId, item.uploadId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return reject(error.code, error.message);
    }
    const { outcome, run } = await createRun(deps.runs, { accountId: ref.accountId, scanner, source, window: null, metadata: item.metadata, batchItem: ref });
    if (outcome === 'insufficient_credits') return reject('insufficient_credits', `This item needs ${run.credits} credit(s); the wallet could not cover it.`);
    // item_not_waiting: canceled meanwhile, or spawned by another attempt; read it again.
    if (outcome === 'created') {
      await deps.workflows.startAnalysis({ accountId: ref.accountId, runId: run.runId, analysisId: run.analysisId });
      return { started: true };
    }
  }
}

/** Arms the item with the workflow's token; a run that has already ended wakes it at once. */
export async function awaitItemRun(deps: BatchWorkflowDeps, ref: BatchItemRef, taskToken: string): Promise<void> {
  const item = await requireItem(deps.batches, ref);
  if (item.runId && (await deps.batches.awaitRun(ref, item.runId, taskToken))) return;
  await deps.callbacks.succeed(taskToken, { status: item.status });
}

/**
 * Called by a run's own terminal step: its batch item takes the run's terminal state (once), and
 * the batch workflow waiting on the item is woken.
 */
export async function settleBatchItem(deps: Pick<BatchWorkflowDeps, 'batches' | 'callbacks'>, run: RunRecord): Promise<void> {
  if (!run.batchItem || (run.status !== 'completed' && run.status !== 'failed')) return;
  await deps.batches.transition(run.batchItem, run.status === 'completed' ? 'complete' : 'fail', run.error ? { error: run.error } : {}, nowIso());
  const item = await deps.batches.getItem(run.batchItem);
  if (item?.taskToken) await deps.callbacks.succeed(item.taskToken, { status: item.status });
}

/**
 * Settles the batch once every item has: items a failed fan-out never reached are failed, and
 * `completed_at` is set once. The caller announces it (with an id derived from the batch, so a
 * repeat announces the same event).
 */
export async function finishBatch(deps: BatchWorkflowDeps, ref: BatchRef, fanOutFailed: boolean): Promise<BatchRecord> {
  const batch = fanOutFailed ? await rejectUnstarted(deps, ref) : await getBatch(deps.batches, ref.accountId, ref.batchId);
  const { counters } = batch;
  if (counters.queued + counters.processing > 0)
    throw new BatchNotSettled(`Batch ${ref.batchId} still has unsettled items (${batchStatusOf(counters, batch.cancelRequested)})`);
  return markBatchCompleted(deps.batches, ref);
}

/** Items the fan-out never reached fail: their batch will not start them. */
async function rejectUnstarted(deps: BatchWorkflowDeps, ref: BatchRef): Promise<BatchRecord> {
  const batch = await getBatch(deps.batches, ref.accountId, ref.batchId);
  for (const item of await allItems(deps.batches, ref, batch.counters.total)) {
    if (item.status === 'queued')
      await deps.batches.transition(
        { ...ref, index: item.index },
        'reject',
        { error: { code: 'batch_failed', message: 'The batch could not start this item.' } },
        nowIso(),
      );
  }
  return getBatch(deps.batches, ref.accountId, ref.batchId);
}

/**
 * A batch execution that timed out or was aborted (EventBridge on AWS): its queued items fail at
 * once; spawned items still settle through their own runs. Settled now if nothing is in flight.
 */
export async function settleEndedBatch(deps: BatchWorkflowDeps, ref: BatchRef): Promise<BatchRecord> {
  const batch = await rejectUnstarted(deps, ref);
  if (batch.completedAt || batch.counters.processing > 0) return batch;
  return markBatchCompleted(deps.batches, ref);
}
