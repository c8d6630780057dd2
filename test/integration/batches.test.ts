/**
 * Scanner batches through the local host (SPEC "Scanner batch", batch endpoints, Limits, Billing;
 * DESIGN §3-6; docs/batches.md): validation at submission, idempotent submission, items pinned to
 * the scanner version of submission, one independently billed run per item, counters that always
 * add up, pagination of summaries and items, cancel, the wallet running dry mid-batch, fan-out
 * bounded by the account's concurrency, and scanner_batch.completed.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { eventLog } from '../helpers/events.js';
import { clientFor, createAccount, createScanner, expectError, type AccountOptions, type Client, type List } from '../helpers/api.js';
import {
  batchIdPattern,
  expectConsistent,
  getBatch,
  postBatch,
  submitBatch,
  waitForBatch,
  type Batch,
  type BatchSummary,
  type ItemInput,
} from '../helpers/batches.js';
import { balanceOf, createPendingUpload, creditsFor, toneWav, uploadFile, waitForRun, type Run, type Upload } from '../helpers/runs.js';

const HEAVY_TEST_MS = 180_000;
let clip: string;
let longer: string;

beforeAll(async () => {
  [clip, longer] = await Promise.all([toneWav(5), toneWav(90)]);
});

interface Workspace {
  client: Client;
  accountId: string;
  scannerId: string;
  upload: Upload;
}

async function workspace(options: AccountOptions = {}, source = clip): Promise<Workspace> {
  const account = await createAccount({ credits: 1000, ...options });
  const client = clientFor(account.apiKey);
  const scanner = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  return { client, accountId: account.accountId, scannerId: scanner.scanner_id, upload: await uploadFile(client, source) };
}

const itemsFor = (ws: Workspace, count: number, extra: Partial<ItemInput> = {}): ItemInput[] =>
  Array.from({ length: count }, (_, i) => ({ client_id: `item-${i}`, scanner_id: ws.scannerId, upload_id: ws.upload.upload_id, ...extra }));

async function batchEvents(batchId: string) {
  return (await eventLog(inject('dataDir')))
    .map((line) => line.event)
    .filter((e) => e.type === 'scanner_batch.completed' && (e.data.object as BatchSummary).batch_id === batchId);
}

describe('POST /v1/scanner-batches: what is refused at submission', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
  });

  test('an Idempotency-Key is required', async () => {
    const response = await ws.client.post('/v1/scanner-batches', { items: itemsFor(ws, 1) });
    expectError(response, 400, 'idempotency_key_required');
  });

  test('a body over 512 KiB is 413 payload_too_large; 1 to 100 items', async () => {
    const padding = 'x'.repeat(500);
    const huge = Array.from({ length: 100 }, (_, i) => ({
      client_id: `c${i}`,
      scanner_id: ws.scannerId,
      upload_id: ws.upload.upload_id,
      metadata: Object.fromEntries(Array.from({ length: 11 }, (_, k) => [`k${k}`, padding])),
    }));
    expectError(await postBatch(ws.client, huge), 413, 'payload_too_large');
    expectError(await postBatch(ws.client, []), 400, 'validation_failed', 'items');
    expectError(await postBatch(ws.client, itemsFor(ws, 101)), 400, 'validation_failed', 'items');
  });

  test('client_id must be unique within the request: the error names the repeating item', async () => {
    const items = itemsFor(ws, 4);
    items[3]!.client_id = 'item-1';
    expectError(await postBatch(ws.client, items), 400, 'validation_failed', 'items[3].client_id');
  });

  test("each item's scanner and ready, owned upload are checked, naming the item", async () => {
    const items = itemsFor(ws, 3);
    items[1]!.scanner_id = `scn_${'0'.repeat(32)}`;
    expectError(await postBatch(ws.client, items), 400, 'validation_failed', 'items[1].scanner_id');

    const pending = await createPendingUpload(ws.client, clip);
    const notReady = itemsFor(ws, 3);
    notReady[2]!.upload_id = pending.upload_id;
    expectError(await postBatch(ws.client, notReady), 400, 'upload_not_ready', 'items[2].upload_id');

    const stranger = await workspace();
    const foreign = itemsFor(ws, 2);
    foreign[0]!.upload_id = stranger.upload.upload_id;
    expectError(await postBatch(ws.client, foreign), 400, 'upload_not_found', 'items[0].upload_id');
  });

  test('metadata is bounded, unknown fields (a window) are refused', async () => {
    const items = itemsFor(ws, 1, { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, k) => [`k${k}`, k])) });
    expectError(await postBatch(ws.client, items), 400, 'validation_failed', 'items[0].metadata');
    const windowed = await postBatch(ws.client, [{ ...itemsFor(ws, 1)[0]!, analysis_start_seconds: 0 } as ItemInput]);
    expectError(windowed, 400, 'validation_failed', 'items[0].analysis_start_seconds');
  });

  test('nothing is reserved or created by a refused batch', async () => {
    const before = await balanceOf(ws.client);
    const list = await ws.client.get<List<BatchSummary>>('/v1/scanner-batches');
    expect(list.body.data).toEqual([]);
    expect(await balanceOf(ws.client)).toBe(before);
  });
});

describe('a batch from submission to completion', () => {
  test(
    'items pin the scanner version of submission, each becomes its own billed run, N items over D minutes bill N x ceil(D)',
    async () => {
      const ws = await workspace({ plan: 'creator', credits: 100 });
      const items = itemsFor(ws, 4, { metadata: { source: 'batch-test' } });
      const accepted = await submitBatch(ws.client, items);
      expect(accepted.batch_id).toMatch(batchIdPattern);
      expect(accepted).toMatchObject({ object: 'scanner_batch', counters: { total: 4 }, items_next_cursor: null, completed_at: null });
      expectConsistent(accepted);
      expect(accepted.items.map((i) => [i.client_id, i.scanner_version, i.status, i.run_id])).toEqual(items.map((i) => [i.client_id, 1, 'queued', null]));

      // A change after submission makes version 2; the items keep version 1.
      await ws.client.patch(`/v1/scanners/${ws.scannerId}`, { instructions: 'Summarize the recording, briefly' });
      const seen = new Set<string>();
      const done = await waitForBatch(ws.client, accepted.batch_id, HEAVY_TEST_MS, (b) => seen.add(b.status));
      expect(done.status).toBe('completed');
      expect(done.counters).toEqual({ total: 4, queued: 0, processing: 0, completed: 4, failed: 0, canceled: 0 });
      for (const status of seen) expect(['queued', 'processing', 'completed']).toContain(status);

      const runs = await Promise.all(done.items.map((item) => ws.client.get<Run>(`/v1/runs/${item.run_id}`)));
      expect(new Set(runs.map((r) => r.body.run_id)).size).toBe(4);
      runs.forEach((run, i) => {
        expect(run.body).toMatchObject({
          status: 'completed',
          scanner_version: 1,
          upload_id: ws.upload.upload_id,
          analysis_id: done.items[i]!.analysis_id,
          metadata: { source: 'batch-test' },
        });
      });
      expect(await balanceOf(ws.client)).toBe(100 - 4 * creditsFor(ws.upload.duration_ms ?? 0));

      // Announced right after completed_at is set.
      await expect.poll(() => batchEvents(accepted.batch_id), { timeout: 10_000 }).not.toHaveLength(0);
      expect((await batchEvents(accepted.batch_id))[0]!.data.object).toMatchObject({ status: 'completed', counters: done.counters });
    },
    HEAVY_TEST_MS,
  );

  test('the same key and body replays the same batch; the same key with another body is 409', async () => {
    const ws = await workspace();
    const key = randomUUID();
    const items = itemsFor(ws, 2);
    const first = await postBatch(ws.client, items, key);
    expect(first.status).toBe(202);
    const again = await postBatch(ws.client, items, key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.batch_id).toBe(first.body.batch_id);
    expectError(await postBatch(ws.client, itemsFor(ws, 3), key), 409, 'idempotency_key_reused');
    await waitForBatch(ws.client, first.body.batch_id);
    const list = await ws.client.get<List<BatchSummary>>('/v1/scanner-batches');
    expect(list.body.data.map((b) => b.batch_id)).toEqual([first.body.batch_id]);
  });

  test(
    'when the wallet runs dry mid-batch, that item fails with insufficient_credits and the others go on',
    async () => {
      const ws = await workspace({ plan: 'creator', credits: 2 });
      const done = await waitForBatch(ws.client, (await submitBatch(ws.client, itemsFor(ws, 3))).batch_id, HEAVY_TEST_MS);
      expect(done.status).toBe('partial');
      expect(done.counters).toMatchObject({ completed: 2, failed: 1 });
      const failed = done.items.find((i) => i.status === 'failed')!;
      expect(failed).toMatchObject({ run_id: null, analysis_id: null, error: { code: 'insufficient_credits' } });
      expect(await balanceOf(ws.client)).toBe(0);
    },
    HEAVY_TEST_MS,
  );

  test(
    "the fan-out never holds more than the account's concurrency: a beginner's items run one at a time",
    async () => {
      const ws = await workspace({ plan: 'beginner' });
      let maxProcessing = 0;
      const done = await waitForBatch(ws.client, (await submitBatch(ws.client, itemsFor(ws, 3))).batch_id, HEAVY_TEST_MS, (b) => {
        maxProcessing = Math.max(maxProcessing, b.counters.processing);
      });
      expect(done.status).toBe('completed');
      expect(maxProcessing).toBeLessThanOrEqual(1);
      const runs = await Promise.all(done.items.map(async (i) => (await ws.client.get<Run>(`/v1/runs/${i.run_id}`)).body));
      // Each item's run was only created once the one before it had ended: queued items are not runs.
      runs.slice(1).forEach((run, i) => expect(Date.parse(run.created_at)).toBeGreaterThanOrEqual(Date.parse(runs[i]!.completed_at!)));
    },
    HEAVY_TEST_MS,
  );
});

describe('reading batches', () => {
  let ws: Workspace;
  let batches: Batch[];
  beforeAll(async () => {
    ws = await workspace();
    batches = [];
    for (let i = 0; i < 3; i++) batches.push(await submitBatch(ws.client, itemsFor(ws, 5)));
  });

  test('GET /v1/scanner-batches: at most 50 a page, newest first, items not embedded, an opaque cursor', async () => {
    expectError(await ws.client.get('/v1/scanner-batches?limit=51'), 400, 'validation_failed', 'limit');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await ws.client.get<List<BatchSummary & { items?: unknown }>>(`/v1/scanner-batches${query}`);
      expect(page.status, page.text).toBe(200);
      for (const summary of page.body.data) {
        expect(summary.items).toBeUndefined();
        expectConsistent(summary);
        seen.push(summary.batch_id);
      }
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(batches.map((b) => b.batch_id).reverse());
    const stranger = await workspace();
    expect((await stranger.client.get<List<BatchSummary>>('/v1/scanner-batches')).body.data).toEqual([]);
  });

  test('GET /v1/scanner-batches/{id}: items in request order by numeric item_cursor, items_next_cursor null on the last page', async () => {
    const batchId = batches[0]!.batch_id;
    const first = await getBatch(ws.client, batchId, '?item_limit=2');
    expect(first.items.map((i) => i.client_id)).toEqual(['item-0', 'item-1']);
    expect(first.items_next_cursor).toBe(2);
    const second = await getBatch(ws.client, batchId, `?item_limit=2&item_cursor=${first.items_next_cursor}`);
    expect(second.items.map((i) => i.client_id)).toEqual(['item-2', 'item-3']);
    const last = await getBatch(ws.client, batchId, `?item_limit=2&item_cursor=${second.items_next_cursor}`);
    expect(last.items.map((i) => i.client_id)).toEqual(['item-4']);
    expect(last.items_next_cursor).toBeNull();
    expect((await getBatch(ws.client, batchId)).items).toHaveLength(5);
    expectError(await ws.client.get(`/v1/scanner-batches/${batchId}?item_limit=101`), 400, 'validation_failed', 'item_limit');
    expectError(await ws.client.get(`/v1/scanner-batches/${batchId}?item_cursor=abc`), 400, 'validation_failed', 'item_cursor');
  });

  test(
    "another account's batch, and an unknown one, are 404",
    async () => {
      const stranger = await workspace();
      expectError(await stranger.client.get(`/v1/scanner-batches/${batches[0]!.batch_id}`), 404, 'not_found');
      expectError(await stranger.client.post(`/v1/scanner-batches/${batches[0]!.batch_id}/cancel`), 404, 'not_found');
      expectError(await ws.client.get(`/v1/scanner-batches/bat_${'0'.repeat(32)}`), 404, 'not_found');
      await Promise.all(batches.map((b) => waitForBatch(ws.client, b.batch_id, HEAVY_TEST_MS)));
    },
    HEAVY_TEST_MS,
  );
});

describe('POST /v1/scanner-batches/{id}/cancel', () => {
  test(
    'queued items never start and become canceled; the spawned item drains to its own state; a settled batch is 409',
    async () => {
      const ws = await workspace({ plan: 'beginner', credits: 100 }, longer);
      const batch = await submitBatch(ws.client, itemsFor(ws, 4));
      // Wait until the first item is spawned, so one item drains and the rest are canceled.
      let current = await getBatch(ws.client, batch.batch_id);
      while (!current.items.some((i) => i.run_id)) current = await getBatch(ws.client, batch.batch_id);
      const cancel = await ws.client.post<BatchSummary>(`/v1/scanner-batches/${batch.batch_id}/cancel`);
      expect(cancel.status, cancel.text).toBe(202);
      expect(cancel.body.status).toBe('canceling');
      expect(cancel.body.counters).toMatchObject({ queued: 0, canceled: 3 });
      expect((await ws.client.post<BatchSummary>(`/v1/scanner-batches/${batch.batch_id}/cancel`)).status).toBe(202);

      const done = await waitForBatch(ws.client, batch.batch_id, HEAVY_TEST_MS);
      expect(done.status).toBe('canceled');
      expect(done.counters).toEqual({ total: 4, queued: 0, processing: 0, completed: 1, failed: 0, canceled: 3 });
      const spawned = done.items.filter((i) => i.run_id);
      expect(spawned).toHaveLength(1);
      expect(spawned[0]!.status).toBe('completed');
      expect((await waitForRun(ws.client, spawned[0]!.run_id!)).status).toBe('completed');
      // Only the spawned item was ever reserved, and it was charged.
      expect(await balanceOf(ws.client)).toBe(100 - creditsFor(ws.upload.duration_ms ?? 0));
      expectError(await ws.client.post(`/v1/scanner-batches/${batch.batch_id}/cancel`), 409, 'batch_not_cancelable');
    },
    HEAVY_TEST_MS,
  );
});

describe('fairness', () => {
  test(
    "a 100-item batch on one account does not delay another account's single run",
    async () => {
      const [busy, other] = await Promise.all([workspace({ plan: 'creator', credits: 1000 }), workspace({ plan: 'beginner', credits: 10 })]);
      const batch = await submitBatch(busy.client, itemsFor(busy, 100));
      expect(batch.counters.total).toBe(100);
      const single = await other.client.post<Run>(`/v1/scanners/${other.scannerId}/runs`, { upload_id: other.upload.upload_id });
      expect(single.status, single.text).toBe(202);
      const run = await waitForRun(other.client, single.body.run_id, HEAVY_TEST_MS);
      expect(run.status).toBe('completed');
      // The other account's run went through while the batch was still draining: it waits for
      // no slot of the busy account.
      const meanwhile = await getBatch(busy.client, batch.batch_id);
      expect(meanwhile.counters.completed).toBeLessThan(100);
      // The rest of the batch is not this test's business: cancel it and let the spawned items drain.
      expect((await busy.client.post(`/v1/scanner-batches/${batch.batch_id}/cancel`)).status).toBe(202);
      const done = await waitForBatch(busy.client, batch.batch_id, HEAVY_TEST_MS);
      expect(done.status).toBe('canceled');
      expect(done.counters.completed).toBeGreaterThanOrEqual(meanwhile.counters.completed);
    },
    HEAVY_TEST_MS,
  );
});
