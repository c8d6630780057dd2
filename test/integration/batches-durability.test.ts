/**
 * Batches across a local-host restart, and the deployment switch. A host stopped (Ctrl-C) in the
 * middle of a beginner's batch, then started again on the same data, loses no item and creates
 * no duplicate run: every item settles once and the wallet is charged once per item. Started
 * with SCANNER_BATCHES_ENABLED=false, the same host refuses new batches with 503.
 */
import { afterAll, expect, test } from 'vitest';
import { api, createAccount, createScanner, expectError, type Account } from '../helpers/api.js';
import { getBatch, postBatch, submitBatch, waitForBatch } from '../helpers/batches.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { balanceOf, creditsFor, toneWav, uploadFile, type Run } from '../helpers/runs.js';

const hosts = hostsOnOwnData('mss-batch-restart-');
afterAll(() => hosts.cleanUp());

test('a batch interrupted by a host restart loses no item and creates no duplicate run; the switch turns batches off', async () => {
  const first = await hosts.start();
  const beginner = await createAccount({ plan: 'beginner', credits: 50 }, hosts.dataDir());
  const client = api(first.baseUrl, beginner.apiKey);
  const upload = await uploadFile(client, await toneWav(60));
  const scanner = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  const items = Array.from({ length: 4 }, (_, i) => ({ client_id: `c${i}`, scanner_id: scanner.scanner_id, upload_id: upload.upload_id }));
  const batch = await submitBatch(client, items);

  let current = await getBatch(client, batch.batch_id);
  while (!current.items.some((i) => i.run_id)) current = await getBatch(client, batch.batch_id);
  expect(current.counters.completed, 'the batch must still be in flight when the host stops').toBeLessThan(4);
  first.child.kill('SIGINT');
  expect(await first.exited).toEqual({ code: 0, signal: null });

  const second = await hosts.start();
  expect(second.output().stdout).toMatch(/Resumed 1 scanner batch\(es\)/);
  const again = api(second.baseUrl, beginner.apiKey);
  const done = await waitForBatch(again, batch.batch_id, 180_000);
  expect(done.status).toBe('completed');
  expect(done.counters).toEqual({ total: 4, queued: 0, processing: 0, completed: 4, failed: 0, canceled: 0 });
  expect(new Set(done.items.map((i) => i.run_id)).size).toBe(4);
  for (const item of done.items) expect((await again.get<Run>(`/v1/runs/${item.run_id}`)).body.status).toBe('completed');
  // One reservation per item, charged once: a duplicate run would have taken more.
  expect(await balanceOf(again)).toBe(50 - 4 * creditsFor(upload.duration_ms ?? 0));
  expect((await again.get<Account>('/v1/account')).body.concurrency).toEqual({ limit: 1, in_use: 0, queued: 0 });
  second.child.kill('SIGINT');
  await second.exited;

  const switchedOff = await hosts.start({ SCANNER_BATCHES_ENABLED: 'false' });
  const off = api(switchedOff.baseUrl, beginner.apiKey);
  expectError(await postBatch(off, items), 503, 'scanner_batch_service_unavailable');
  expect((await getBatch(off, batch.batch_id)).status).toBe('completed');
}, 400_000);
