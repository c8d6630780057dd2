import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { idsFor, restartIfUnstarted, type IdClaims } from '../id-claims.js';
import type { Account } from '../accounts/model.js';
import type { Page, PageRequest } from '../pages.js';
import type { ScannerStore } from '../scanners/ports.js';
import type { RunnableSourceLookup } from '../runs/ports.js';
import { batchEndAnnouncements, batchStatusOf, isTerminalBatch, type BatchItemRecord, type BatchRecord } from './model.js';
import type { BatchRef, BatchStore, BatchWorkflowStarter } from './ports.js';
import type { Metadata } from '../metadata.js';

export interface BatchDeps {
  batches: BatchStore;
  scanners: ScannerStore;
  findSource: RunnableSourceLookup;
  batchWorkflows: BatchWorkflowStarter;
  claims: IdClaims;
  /** Durable batch processing is switched on for this deployment. */
  batchesEnabled: boolean;
}

export interface BatchView {
  batch: BatchRecord;
  items: BatchItemRecord[];
  /** The item offset of the next page; null on the last. */
  nextItemOffset: number | null;
}

/**
 * Accepts a batch: every item's scanner and upload are checked now (the error names the item),
 * each item pins the scanner version current at submission, the batch and its items are stored,
 * then its workflow starts. Nothing is reserved yet: each item reserves when it becomes a run.
 * Under an Idempotency-Key the batch id is claimed first, and a batch an earlier attempt stored
 * under it is the answer: one batch, whose items each become one run.
 */
/** POST /v1/scanner-batches as validated at the edge (1 to 100 items, client ids unique); each item analyses its full upload. */
interface BatchCreate {
  items: { client_id: string; scanner_id: string; upload_id: string; metadata?: Metadata | undefined }[];
}

export async function submitBatch(deps: BatchDeps, account: Account, input: BatchCreate, itemLimit: number, idempotencyKey?: string): Promise<BatchView> {
  if (!deps.batchesEnabled) {
    throw new ApiError(
      'scanner_batch_service_unavailable',
      'Durable batch processing is not enabled on this deployment; do not resubmit this work under new keys.',
    );
  }
  const { accountId } = account;
  const { batchId } = await idsFor(deps.claims, accountId, 'batch', idempotencyKey, () => ({ batchId: newId('batch') }));
  const earlier = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, accountId, batchId, itemLimit);
  if (earlier) return earlier;
  // Items often share scanners and uploads: each is read once, and its answer judged per item.
  const versions = onceEach((scannerId: string) => deps.scanners.get(accountId, scannerId).then((scanner) => scanner?.version ?? 0));
  const sources = onceEach((uploadId: string) =>
    deps.findSource(accountId, uploadId).then(
      () => null,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    ),
  );
  const checkItem = async (item: BatchCreate['items'][number], index: number): Promise<number> => {
    const [version, sourceError] = await Promise.all([versions(item.scanner_id), sources(item.upload_id)]);
    if (!version) throw new ApiError('validation_failed', `No such scanner: ${item.scanner_id}.`, `items[${index}].scanner_id`);
    if (sourceError instanceof ApiError) throw new ApiError(sourceError.code, sourceError.message, `items[${index}].upload_id`);
    if (sourceError) throw sourceError;
    return version;
  };
  const checked = await Promise.allSettled(input.items.map(checkItem));
  // The first bad item, in request order, is the one named.
  const pinned = checked.map((check) => {
    if (check.status === 'rejected') throw check.reason;
    return check.value;
  });

  const now = nowIso();
  const items: BatchItemRecord[] = input.items.map((item, index) => ({
    batchId,
    accountId,
    index,
    clientId: item.client_id,
    scannerId: item.scanner_id,
    scannerVersion: pinned[index]!,
    uploadId: item.upload_id,
    metadata: item.metadata ?? {},
    status: 'queued',
    runId: null,
    analysisId: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  }));
  const total = items.length;
  const batch: BatchRecord = {
    batchId,
    accountId,
    counters: { total, queued: total, processing: 0, completed: 0, failed: 0, canceled: 0 },
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  try {
    await deps.batches.create(batch, items);
  } catch (error) {
    // A concurrent attempt under the same key may have stored the batch first: it is the answer.
    const raced = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, accountId, batchId, itemLimit);
    if (raced) return raced;
    throw error;
  }
  try {
    await deps.batchWorkflows.startBatch({ accountId, batchId });
  } catch (cause) {
    // Nothing was reserved; the items will never start, and say why.
    const error = { code: 'queue_unavailable', message: 'The batch could not be queued.' };
    for (const item of items) await deps.batches.transition({ accountId, batchId, index: item.index }, 'reject', { error }, nowIso());
    await markBatchCompleted(deps.batches, { accountId, batchId });
    throw new ApiError('queue_unavailable', 'The batch could not be queued. Retry with backoff under the same Idempotency-Key.', undefined, { cause });
  }
  return { batch, items: items.slice(0, itemLimit), nextItemOffset: total > itemLimit ? itemLimit : null };
}

/** The batch an earlier attempt under the same key stored, its workflow started again if it has not settled (starts are idempotent by name). */
async function alreadyCreated(deps: BatchDeps, accountId: string, batchId: string, itemLimit: number): Promise<BatchView | undefined> {
  const batch = await deps.batches.get(accountId, batchId);
  if (!batch) return undefined;
  await restartIfUnstarted(batch.completedAt === null, () => deps.batchWorkflows.startBatch({ accountId, batchId }));
  return viewBatch(deps.batches, accountId, batchId, 0, itemLimit);
}

/** `lookup` called once per distinct key, its promise shared by every caller of that key. */
function onceEach<T>(lookup: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const answers = new Map<string, Promise<T>>();
  return (key) => {
    let answer = answers.get(key);
    if (!answer) answers.set(key, (answer = lookup(key)));
    return answer;
  };
}

export async function getBatch(batches: BatchStore, accountId: string, batchId: string): Promise<BatchRecord> {
  const batch = await batches.get(accountId, batchId);
  if (!batch) throw notFound('scanner batch');
  return batch;
}

/** A batch with one page of its items, in request order. */
export async function viewBatch(batches: BatchStore, accountId: string, batchId: string, offset: number, limit: number): Promise<BatchView> {
  const batch = await getBatch(batches, accountId, batchId);
  const items = offset < batch.counters.total ? await batches.listItems(accountId, batchId, offset, limit) : [];
  const next = offset + items.length;
  return { batch, items, nextItemOffset: items.length && next < batch.counters.total ? next : null };
}

export const listBatches = (batches: BatchStore, accountId: string, page: PageRequest): Promise<Page<BatchRecord>> => batches.list(accountId, page);

/**
 * Cancel: queued items never start and become canceled at once; items already spawned drain to
 * their own terminal state. A settled batch cannot be canceled (409); canceling twice is fine.
 */
export async function cancelBatch(batches: BatchStore, ref: BatchRef): Promise<BatchRecord> {
  const batch = await getBatch(batches, ref.accountId, ref.batchId);
  if (isTerminalBatch(batchStatusOf(batch.counters, batch.cancelRequested)) || !(await batches.requestCancel(ref, nowIso()))) {
    throw new ApiError('batch_not_cancelable', 'The batch has already finished; only queued or processing batches can be canceled.');
  }
  for (let offset = 0; offset < batch.counters.total; offset += 100) {
    for (const item of await batches.listItems(ref.accountId, ref.batchId, offset, 100)) {
      // A spawn racing this loses (it requires the batch not to be canceling) or wins; either way once.
      if (item.status === 'queued') await batches.transition({ ...ref, index: item.index }, 'cancel', {}, nowIso());
    }
  }
  return getBatch(batches, ref.accountId, ref.batchId);
}

/** Ends a batch once: completed_at, and scanner_batch.completed in the outbox in the same write. */
export async function markBatchCompleted(batches: BatchStore, ref: BatchRef): Promise<BatchRecord> {
  const now = nowIso();
  await batches.markCompleted(ref, now, batchEndAnnouncements(ref.batchId, now));
  return getBatch(batches, ref.accountId, ref.batchId);
}
