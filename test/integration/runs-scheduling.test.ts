/**
 * Fair scheduling (SPEC Run status and Limits, DESIGN §6), through the local host: each account
 * runs at most its plan's number of runs at once (beginner 1, hobby 2), the rest wait `queued`
 * oldest first, one account's backlog never delays another account, GET /v1/account shows the
 * slots in use and the queue, and GET /v1/analyses/{id}/progress shows the queue position.
 * The order is asserted on the runs' own timestamps, never on how fast this machine is.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, type Account, type AccountOptions, type Client } from '../helpers/api.js';
import { startRun, toneWav, uploadFile, waitForCompleted, type Progress, type Run, type Upload } from '../helpers/runs.js';

const HEAVY_TEST_MS = 150_000;
let tone: string;

beforeAll(async () => {
  tone = await toneWav(90);
});

/** A fresh account with a summarizer scanner and one ready upload. */
async function workspace(plan: AccountOptions['plan']): Promise<{ client: Client; scannerId: string; upload: Upload }> {
  const client = clientFor((await createAccount({ plan, credits: 100 })).apiKey);
  const scanner = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  return { client, scannerId: scanner.scanner_id, upload: await uploadFile(client, tone) };
}

async function submitMany(ws: Awaited<ReturnType<typeof workspace>>, count: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < count; i++) runs.push(await startRun(ws.client, ws.scannerId, { upload_id: ws.upload.upload_id }));
  return runs;
}

const completedAll = (client: Client, runs: Run[]) => Promise.all(runs.map((r) => waitForCompleted(client, r.run_id, HEAVY_TEST_MS)));
const at = (iso: string | null): number => Date.parse(iso ?? 'invalid');

/**
 * Run i (in submission order) started only once i - slots + 1 earlier runs had completed: never
 * more than `slots` at once, and the oldest waiting run is the one that got the freed slot.
 */
function expectAtMostConcurrent(runs: Run[], slots: number): void {
  runs.forEach((run, i) => {
    if (i < slots) return;
    const freed = runs
      .slice(0, i)
      .map((r) => at(r.completed_at))
      .sort((a, b) => a - b)[i - slots]!;
    expect(at(run.started_at), `run ${i} started before a slot was free`).toBeGreaterThanOrEqual(freed);
  });
}

async function progressOf(client: Client, analysisId: string): Promise<Progress> {
  const response = await client.get<Progress>(`/v1/analyses/${analysisId}/progress`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('per-account concurrency slots', () => {
  test(
    "a beginner account's second run stays queued until the first ends, with its place in the queue shown",
    async () => {
      const ws = await workspace('beginner');
      const [first, second] = await submitMany(ws, 2);

      // The second can only be dispatched once the first has completed, seconds from now.
      const waiting = await progressOf(ws.client, second!.analysis_id);
      expect(waiting).toMatchObject({
        object: 'analysis_progress',
        analysis_id: second!.analysis_id,
        run_id: second!.run_id,
        status: 'queued',
        chunks_done: 0,
        fraction: 0,
      });
      expect(waiting.queue_position).toBeGreaterThanOrEqual(1);
      expect(waiting.queue_position).toBeLessThanOrEqual(2);
      const account = (await ws.client.get<Account>('/v1/account')).body;
      expect(account.concurrency.limit).toBe(1);
      expect(account.concurrency.in_use).toBeLessThanOrEqual(1);
      expect(account.concurrency.in_use + account.concurrency.queued).toBe(2);

      const done = await completedAll(ws.client, [first!, second!]);
      expectAtMostConcurrent(done, 1);
      expect(at(done[1]!.started_at)).toBeGreaterThanOrEqual(at(done[0]!.completed_at));

      const finished = await progressOf(ws.client, second!.analysis_id);
      expect(finished).toMatchObject({ status: 'completed', queue_position: null, fraction: 1, chunks_total: 1, chunks_done: 1 });
      expect((await ws.client.get<Account>('/v1/account')).body.concurrency).toEqual({ limit: 1, in_use: 0, queued: 0 });
    },
    HEAVY_TEST_MS,
  );

  test(
    'a hobby account runs two at once, never three',
    async () => {
      const ws = await workspace('hobby');
      const done = await completedAll(ws.client, await submitMany(ws, 3));
      expectAtMostConcurrent(done, 2);
      expect((await ws.client.get<Account>('/v1/account')).body.concurrency).toEqual({ limit: 2, in_use: 0, queued: 0 });
    },
    HEAVY_TEST_MS,
  );

  test(
    "two accounts with backlogs interleave: one account's backlog does not delay the other",
    async () => {
      const [a, b] = await Promise.all([workspace('beginner'), workspace('beginner')]);
      const aRuns = await submitMany(a, 3);
      const bRuns = await submitMany(b, 3);
      const [aDone, bDone] = await Promise.all([completedAll(a.client, aRuns), completedAll(b.client, bRuns)]);
      expectAtMostConcurrent(aDone, 1);
      expectAtMostConcurrent(bDone, 1);
      // B's first run was submitted behind all of A's, yet it did not wait for A's backlog.
      expect(at(bDone[0]!.started_at)).toBeLessThan(at(aDone[1]!.started_at));
      expect(at(bDone[1]!.started_at)).toBeLessThan(at(aDone[2]!.started_at));
    },
    HEAVY_TEST_MS,
  );
});

describe('GET /v1/analyses/{analysis_id}/progress', () => {
  test('is 404 for an unknown analysis and for another account', async () => {
    const ws = await workspace('creator');
    const run = await startRun(ws.client, ws.scannerId, { upload_id: ws.upload.upload_id });
    const stranger = clientFor((await createAccount()).apiKey);
    expectError(await stranger.get(`/v1/analyses/${run.analysis_id}/progress`), 404, 'not_found');
    expectError(await ws.client.get(`/v1/analyses/ana_${'0'.repeat(32)}/progress`), 404, 'not_found');
    await waitForCompleted(ws.client, run.run_id);
  });
});
