import { call, median, pollUntil, prepareRun, round, stopwatch, submit, type ApiTarget, type RunInputs } from './client.js';
import { benchHost } from './host.js';
import { CLIP_SECONDS, shortClip } from './media.js';

/** The parts of a scanner batch the benchmarks read. */
export interface BatchRecord {
  batch_id: string;
  status: string;
  counters: Record<'total' | 'queued' | 'processing' | 'completed' | 'failed' | 'canceled', number>;
  created_at: string;
  completed_at: string | null;
  items: { analysis_id: string | null }[];
}

/** `size` items, each the same scanner over the same upload (each becomes a run of its own). */
export function submitBatch(target: ApiTarget, inputs: RunInputs, size: number): Promise<BatchRecord> {
  const items = Array.from({ length: size }, (_, i) => ({ client_id: `item-${i + 1}`, scanner_id: inputs.scannerId, upload_id: inputs.uploadId }));
  return submit<BatchRecord>(target, '/v1/scanner-batches', { items });
}

/** Polls (one item per read: the counters are what matters) until the workflow has settled the batch. */
export const waitForBatch = (target: ApiTarget, batchId: string): Promise<BatchRecord> =>
  pollUntil(
    () => call<BatchRecord>(target, 'GET', `/v1/scanner-batches/${batchId}?item_limit=1`),
    (batch) => batch.completed_at !== null,
    { intervalMs: 500 },
  );

export interface BatchesBenchResult {
  plan: string;
  concurrencyLimit: number;
  items: number;
  clipSeconds: number;
  /** POST /v1/scanner-batches, median of LATENCY_SAMPLES. */
  acceptMsMedian: number;
  /** GET /v1/scanner-batches/{id} with its 100 items, median of LATENCY_SAMPLES. */
  detailMsMedian: number;
  /** created_at to completed_at, both stamped by the host. */
  drainSeconds: number;
  runsPerSecond: number;
  completed: number;
}

const BATCH_SIZE = 100;
const LATENCY_SAMPLES = 5;

/**
 * Issue #9 (scanner batches): on the default account (plan creator, 3 slots), how long a
 * 100-item batch takes to be accepted and to drain, each item a find_moments run over a 5 s clip.
 */
export async function benchBatches(): Promise<BatchesBenchResult> {
  const host = await benchHost();
  try {
    const account = await call<{ plan: string; concurrency: { limit: number } }>(host, 'GET', '/v1/account');
    const inputs = await prepareRun(host, await shortClip());
    // The first samples are canceled at once (queued items never start) and settled before the next
    // POST, so only the last batch drains and it has the account's slots to itself.
    const acceptMs: number[] = [];
    for (let sample = 1; sample < LATENCY_SAMPLES; sample += 1) {
      const { result: canceled, ms } = await stopwatch(() => submitBatch(host, inputs, BATCH_SIZE));
      acceptMs.push(ms);
      await call(host, 'POST', `/v1/scanner-batches/${canceled.batch_id}/cancel`);
      await waitForBatch(host, canceled.batch_id);
    }
    const { result: measured, ms } = await stopwatch(() => submitBatch(host, inputs, BATCH_SIZE));
    acceptMs.push(ms);
    const settled = await waitForBatch(host, measured.batch_id);
    const drainSeconds = (Date.parse(settled.completed_at ?? '') - Date.parse(settled.created_at)) / 1000;

    const detailMs: number[] = [];
    for (let sample = 0; sample < LATENCY_SAMPLES; sample += 1) {
      detailMs.push((await stopwatch(() => call(host, 'GET', `/v1/scanner-batches/${measured.batch_id}`))).ms);
    }
    return {
      plan: account.plan,
      concurrencyLimit: account.concurrency.limit,
      items: BATCH_SIZE,
      clipSeconds: CLIP_SECONDS,
      acceptMsMedian: round(median(acceptMs)),
      detailMsMedian: round(median(detailMs)),
      drainSeconds: round(drainSeconds),
      runsPerSecond: round(BATCH_SIZE / drainSeconds),
      completed: settled.counters.completed,
    };
  } finally {
    await host.stop();
  }
}
