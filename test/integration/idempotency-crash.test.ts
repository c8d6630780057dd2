/**
 * A host killed (SIGKILL) after `POST /v1/scanners/{id}/runs` reserved its credits and before it
 * answered, then started again on the same data: the client's retry with the same
 * Idempotency-Key answers the run the first attempt created (its ids were claimed under the key
 * before the reservation), the wallet is debited once, the account shows one analysis for it,
 * and the run completes. The moment of the kill is the local host's test hook
 * LOCAL_CRASH_AFTER=run_reserved (functions/local/host.ts), never read on AWS.
 */
import { afterAll, expect, test } from 'vitest';
import { api, createScanner, type List } from '../helpers/api.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { balanceOf, creditsFor, runIdPattern, sleep, submitRun, toneWav, uploadFile, waitForCompleted, type Run } from '../helpers/runs.js';

const hosts = hostsOnOwnData('mss-idem-crash-');
afterAll(() => hosts.cleanUp());

test('an idempotent retry after a crash between reservation and answer returns the first run, charged once', async () => {
  const tone = await toneWav(30);
  const first = await hosts.start({ LOCAL_CRASH_AFTER: 'run_reserved' });
  const client = api(first.baseUrl, first.apiKey);
  const upload = await uploadFile(client, tone);
  const scanner = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  const before = await balanceOf(client);
  const credits = creditsFor(upload.duration_ms ?? 0);

  const key = 'crash-after-reservation-1';
  const lost = await submitRun(client, scanner.scanner_id, { upload_id: upload.upload_id }, { 'Idempotency-Key': key }).then(
    (response) => response,
    (error: unknown) => error,
  );
  expect(lost, 'the host must die before it answers').toBeInstanceOf(Error);
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

  const second = await hosts.start();
  const again = api(second.baseUrl, second.apiKey);
  expect(await balanceOf(again), 'the reservation must have survived the crash, or the retry proves nothing').toBe(before - credits);
  // The dead attempt's in-progress record holds the key until its invocation's deadline (29 s).
  let retry = await submitRun(again, scanner.scanner_id, { upload_id: upload.upload_id }, { 'Idempotency-Key': key });
  for (const deadline = Date.now() + 35_000; retry.status === 409 && Date.now() < deadline; ) {
    expect((retry.body as unknown as { error: { code: string } }).error.code).toBe('idempotency_request_in_progress');
    await sleep(1_000);
    retry = await submitRun(again, scanner.scanner_id, { upload_id: upload.upload_id }, { 'Idempotency-Key': key });
  }
  expect(retry.status, retry.text).toBe(202);
  const run: Run = retry.body;
  expect(run.run_id).toMatch(runIdPattern);
  expect(await balanceOf(again)).toBe(before - credits);

  // One analysis of the account stands for it, and a second retry replays the same answer.
  const analyses = await again.get<List<{ analysis_id: string; run_id: string | null }>>('/v1/analyses?kind=scanner_run');
  expect(analyses.body.data.map((a) => [a.analysis_id, a.run_id])).toEqual([[run.analysis_id, run.run_id]]);
  const replay = await submitRun(again, scanner.scanner_id, { upload_id: upload.upload_id }, { 'Idempotency-Key': key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.run_id).toBe(run.run_id);

  // The run the dead attempt created completes, charged once.
  const done = await waitForCompleted(again, run.run_id, 60_000);
  expect(done.billing).toEqual({ credits, state: 'charged' });
  expect(await balanceOf(again)).toBe(before - credits);
}, 150_000);
