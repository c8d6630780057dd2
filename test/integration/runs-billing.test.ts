/**
 * Scanner runs and the wallet, through the local host's HTTP API (SPEC Billing and Limits,
 * DESIGN §5): the exact reservation per run (ceil(minutes), a window bills its own length),
 * 402 when the wallet cannot cover a run, no overdraft under concurrent submissions, a real
 * failure refunded exactly once, Idempotency-Key on run creation, and reads before completion.
 * Every test that checks a balance owns a fresh account.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, expectError, type AccountOptions, type ApiResponse, type Client, type List } from '../helpers/api.js';
import { groundTruthAudio, type GroundTruthMedia } from '../helpers/ground-truth-media.js';
import {
  balanceOf,
  creditsFor,
  deleteUploadObject,
  isTerminal,
  longVideo,
  longVideoCutsMs,
  momentsOf,
  observationsOf,
  sleep,
  startRun,
  submitRun,
  toneWav,
  uploadFile,
  waitForCompleted,
  waitForRun,
  type MomentList,
  type Observation,
  type Run,
  type Upload,
} from '../helpers/runs.js';

const LONG_SECONDS = 120;
/** These tests mint an account, upload, and wait for several runs each, all at once: room on a busy machine. */
const HEAVY_TEST_MS = 100_000;

let audio: GroundTruthMedia;
let tone61: string;
let long: string;

beforeAll(async () => {
  [audio, tone61, long] = await Promise.all([groundTruthAudio(), toneWav(61), longVideo(LONG_SECONDS)]);
});

async function freshClient(options: AccountOptions): Promise<{ client: Client; accountId: string }> {
  const account = await createAccount({ plan: 'creator', ...options });
  return { client: clientFor(account.apiKey), accountId: account.accountId };
}

const monitorBody = { name: 'loud', type: 'monitor', instructions: 'Is there a loud burst?' };

describe.concurrent('billing', () => {
  test(
    'each run reserves exactly ceil(duration / 60) credits at submission, and completion charges nothing more; a 61 s source costs 2',
    async () => {
      const { client } = await freshClient({ credits: 20 });
      const [short, minutePlus] = await Promise.all([uploadFile(client, audio.path), uploadFile(client, tone61)]);
      expect(creditsFor(short.duration_ms ?? 0)).toBe(1);
      expect(Math.abs((minutePlus.duration_ms ?? 0) - 61_000)).toBeLessThanOrEqual(50);
      expect(creditsFor(minutePlus.duration_ms ?? 0)).toBe(2);
      const scanner = await createScanner(client, monitorBody);

      let balance = await balanceOf(client);
      expect(balance).toBe(20);
      for (const [upload, cost] of [
        [short, 1],
        [minutePlus, 2],
      ] as const) {
        const run = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
        expect(await balanceOf(client), 'reserved at submission').toBe(balance - cost);
        const done = await waitForCompleted(client, run.run_id);
        expect(done.source.duration_ms).toBe(upload.duration_ms);
        expect(await balanceOf(client), 'charged once at completion').toBe(balance - cost);
        balance -= cost;
      }
      expect(balance).toBe(17);

      // Rejected requests cost nothing.
      expectError(
        await submitRun(client, scanner.scanner_id, { upload_id: short.upload_id, analysis_start_seconds: 0, analysis_end_seconds: 5 }),
        400,
        'window_not_supported',
      );
      expectError(await submitRun(client, scanner.scanner_id, { upload_id: `upl_${'0'.repeat(32)}` }), 400, 'upload_not_found');
      expect(await balanceOf(client)).toBe(17);
    },
    HEAVY_TEST_MS,
  );

  test(
    'a find_moments window bills its own length (65 s: 2 credits, 60 s: 1), the full video its probed duration',
    async () => {
      const { client } = await freshClient({ credits: 20 });
      const upload = await uploadFile(client, long);
      const full = creditsFor(upload.duration_ms ?? 0);
      expect(full).toBeGreaterThanOrEqual(2);
      const scanner = await createScanner(client, {
        name: 'cuts',
        type: 'find_moments',
        instructions: 'Find the scene changes',
        min_seconds: 5,
        max_seconds: 10,
      });

      const before = await balanceOf(client);
      const windowed = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id, analysis_start_seconds: 10, analysis_end_seconds: 75 });
      expect(await balanceOf(client)).toBe(before - 2);
      const done = await waitForCompleted(client, windowed.run_id);
      expect(done.window).toEqual({ analysis_start_seconds: 10, analysis_end_seconds: 75 });
      expect(await balanceOf(client)).toBe(before - 2);
      const observations = await observationsOf(client, done.run_id);
      const cuts = longVideoCutsMs(LONG_SECONDS).filter((c) => c >= 10_000 && c < 75_000);
      expect(observations.length).toBeGreaterThan(0);
      for (const o of observations) {
        expect(o.evidence.start_ms).toBeGreaterThanOrEqual(10_000);
        expect(o.evidence.end_ms).toBeLessThanOrEqual(75_000);
        expect(
          cuts.some((c) => Math.abs(o.evidence.start_ms - c) <= 500),
          `moment at ${o.evidence.start_ms}`,
        ).toBe(true);
      }

      // Exactly one minute is one credit.
      const minute = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id, analysis_start_seconds: 30.5, analysis_end_seconds: 90.5 });
      expect(await balanceOf(client)).toBe(before - 3);
      expect((await waitForCompleted(client, minute.run_id)).billing).toEqual({ credits: 1, state: 'charged' });

      const whole = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
      expect(await balanceOf(client)).toBe(before - 3 - full);
      await waitForCompleted(client, whole.run_id);
      expect(await balanceOf(client)).toBe(before - 3 - full);
    },
    HEAVY_TEST_MS,
  );

  test(
    '402 insufficient_credits when the wallet cannot cover the run; nothing is reserved',
    async () => {
      const { client } = await freshClient({ credits: 1 });
      const [short, minutePlus] = await Promise.all([uploadFile(client, audio.path), uploadFile(client, tone61)]);
      const scanner = await createScanner(client, monitorBody);

      expectError(await submitRun(client, scanner.scanner_id, { upload_id: minutePlus.upload_id }), 402, 'insufficient_credits');
      expect(await balanceOf(client)).toBe(1);
      // What it can cover is accepted, and takes the wallet to zero, not below.
      const run = await startRun(client, scanner.scanner_id, { upload_id: short.upload_id });
      expect(await balanceOf(client)).toBe(0);
      expectError(await submitRun(client, scanner.scanner_id, { upload_id: short.upload_id }), 402, 'insufficient_credits');
      await waitForCompleted(client, run.run_id);
      expect(await balanceOf(client)).toBe(0);
    },
    HEAVY_TEST_MS,
  );

  test(
    '20 concurrent submissions against a wallet that covers 5: exactly 5 accepted, 15 refused 402, never below zero',
    async () => {
      const { client } = await freshClient({ credits: 5 });
      const upload = await uploadFile(client, audio.path);
      expect(creditsFor(upload.duration_ms ?? 0)).toBe(1);
      const scanner = await createScanner(client, monitorBody);

      let submitting = true;
      const seen: number[] = [];
      const watcher = (async () => {
        while (submitting) {
          seen.push(await balanceOf(client));
          await sleep(10);
        }
      })();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => submitRun(client, scanner.scanner_id, { upload_id: upload.upload_id, metadata: { i } })),
      );
      submitting = false;
      await watcher;

      const accepted = responses.filter((r) => r.status === 202);
      const refused = responses.filter((r) => r.status !== 202);
      expect(accepted, responses.map((r) => `${r.status} ${r.text.slice(0, 120)}`).join('\n')).toHaveLength(5);
      expect(refused).toHaveLength(15);
      for (const r of refused) expectError(r, 402, 'insufficient_credits');
      expect(new Set(accepted.map((r) => r.body.run_id)).size).toBe(5);
      for (const b of seen) expect(b).toBeGreaterThanOrEqual(0);
      expect(await balanceOf(client)).toBe(0);

      const runs = await Promise.all(accepted.map((r) => waitForCompleted(client, r.body.run_id)));
      expect(runs.map((r) => r.status)).toEqual(Array(5).fill('completed'));
      expect(await balanceOf(client)).toBe(0);
    },
    HEAVY_TEST_MS,
  );
});

describe.concurrent('a failed run', () => {
  test(
    'a run whose source object is gone fails with {code, message} and is refunded exactly once',
    async () => {
      const { client, accountId } = await freshClient({ credits: 10 });
      const upload = await uploadFile(client, audio.path);
      const scanner = await createScanner(client, monitorBody);
      await deleteUploadObject(accountId, upload.upload_id);

      const before = await balanceOf(client);
      expect(before).toBe(10);
      const accepted = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
      expect(await balanceOf(client)).toBe(before - 1);

      const run = await waitForRun(client, accepted.run_id);
      expect(run.status).toBe('failed');
      expect(run.billing).toEqual({ credits: run.billing.credits, state: 'refunded' });
      expect(run.error).not.toBeNull();
      expect(Object.keys(run.error ?? {}).sort()).toEqual(['code', 'message']);
      expect(run.error?.code).toBe('source_unreadable');
      expect(run.error?.message.length).toBeGreaterThan(0);
      // Internal causes (object keys, endpoints, signed URLs) never reach a response.
      expect(JSON.stringify(run)).not.toMatch(/127\.0\.0\.1|X-Amz|accounts\/acct_|s3rver|node_modules/i);
      expect(run.observation_count).toBeNull();

      expect(await balanceOf(client), 'refunded').toBe(before);
      // A failed run has no observations and its analysis no moments.
      expectError(await client.get(`/v1/runs/${run.run_id}/observations`), 409, 'run_not_completed');
      expectError(await client.get(`/v1/analyses/${run.analysis_id}/moments`), 409, 'analysis_not_completed');
      // Not refunded twice: still the same a while later.
      await sleep(4_000);
      expect(await balanceOf(client), 'refunded exactly once').toBe(before);
      const later = await client.get<Run>(`/v1/runs/${run.run_id}`);
      expect(later.body.status).toBe('failed');
      expect(later.body.error).toEqual(run.error);
    },
    HEAVY_TEST_MS,
  );
});

describe.concurrent('Idempotency-Key on POST /v1/scanners/{scanner_id}/runs', () => {
  test(
    'same key and body: the same run (one charge); a different body or scanner under that key: 409 idempotency_key_reused',
    async () => {
      const { client } = await freshClient({ credits: 10 });
      const upload = await uploadFile(client, audio.path);
      const [scanner, otherScanner] = await Promise.all([createScanner(client, monitorBody), createScanner(client, { ...monitorBody, name: 'other' })]);
      const key = { 'idempotency-key': `run-${randomUUID()}` };
      const body = { upload_id: upload.upload_id, metadata: { attempt: 'same' } };

      const first = await submitRun(client, scanner.scanner_id, body, key);
      expect(first.status, first.text).toBe(202);
      const second = await submitRun(client, scanner.scanner_id, { metadata: { attempt: 'same' }, upload_id: upload.upload_id }, key);
      expect(second.status, second.text).toBe(202);
      expect(second.body.run_id).toBe(first.body.run_id);
      expect(second.body.analysis_id).toBe(first.body.analysis_id);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await balanceOf(client)).toBe(9);

      expectError(await submitRun(client, scanner.scanner_id, { ...body, metadata: { attempt: 'different' } }, key), 409, 'idempotency_key_reused');
      expectError(await submitRun(client, otherScanner.scanner_id, body, key), 409, 'idempotency_key_reused');

      await waitForCompleted(client, first.body.run_id);
      const third = await submitRun(client, scanner.scanner_id, body, key);
      expect(third.status).toBe(202);
      expect(third.body.run_id).toBe(first.body.run_id);
      expect(await balanceOf(client), 'one charge for all the retries').toBe(9);

      // Concurrent duplicates under a new key: one run, one charge; a duplicate that finds the first
      // still in flight may be told so (409 idempotency_request_in_progress), never a second run.
      const burstKey = { 'idempotency-key': `run-${randomUUID()}` };
      const burst = await Promise.all(Array.from({ length: 5 }, () => submitRun(client, scanner.scanner_id, body, burstKey)));
      const runIds = new Set<string>();
      for (const r of burst) {
        if (r.status === 202) runIds.add(r.body.run_id);
        else expectError(r, 409, 'idempotency_request_in_progress');
      }
      expect(runIds.size).toBe(1);
      expect(await balanceOf(client), 'one charge for the concurrent duplicates').toBe(8);
      await waitForCompleted(client, [...runIds][0] ?? '');

      // Without the key, the same body is a new run.
      const fresh = await startRun(client, scanner.scanner_id, body);
      expect(fresh.run_id).not.toBe(first.body.run_id);
      expect(await balanceOf(client)).toBe(7);
      await waitForCompleted(client, fresh.run_id);
    },
    HEAVY_TEST_MS,
  );
});

describe.concurrent('reads before completion', () => {
  test(
    'observations are 409 run_not_completed and moments 409 analysis_not_completed until the run completes, then 200',
    async () => {
      const { client } = await freshClient({ credits: 20 });
      const upload: Upload = await uploadFile(client, long);
      const scanner = await createScanner(client, {
        name: 'cuts',
        type: 'find_moments',
        instructions: 'Find the scene changes',
        min_seconds: 5,
        max_seconds: 10,
      });
      const accepted = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
      expect(['queued', 'dispatched', 'processing']).toContain(accepted.status);

      let early = 0;
      const seenStatuses = new Set<string>();
      const deadline = Date.now() + 80_000;
      for (;;) {
        const before = await client.get<Run>(`/v1/runs/${accepted.run_id}`);
        const observations = await client.get(`/v1/runs/${accepted.run_id}/observations`);
        const moments = await client.get<MomentList>(`/v1/analyses/${accepted.analysis_id}/moments`);
        const after = await client.get<Run>(`/v1/runs/${accepted.run_id}`);
        seenStatuses.add(before.body.status);
        expect(after.body.status).not.toBe('failed');
        if (!isTerminal(after.body.status)) {
          // Not completed before or after the reads: both must have been refused.
          expectError(observations, 409, 'run_not_completed');
          expectError(moments, 409, 'analysis_not_completed');
          early++;
        } else if (!isTerminal(before.body.status)) {
          // Completed in between: either answer is right.
          expect([200, 409]).toContain(observations.status);
          expect([200, 409]).toContain(moments.status);
        } else {
          expect(observations.status, observations.text).toBe(200);
          expect(moments.status, moments.text).toBe(200);
          break;
        }
        if (Date.now() > deadline) throw new Error('the run did not complete in time');
        await sleep(100);
      }
      expect(early, 'the run was observed before it completed').toBeGreaterThan(0);
      for (const status of seenStatuses) expect(['queued', 'dispatched', 'processing', 'completed']).toContain(status);

      const run = await waitForCompleted(client, accepted.run_id);
      const observations: Observation[] = await observationsOf(client, run.run_id);
      const list = await momentsOf(client, run.analysis_id);
      expect(list.count).toBe(observations.length);
      const cuts = longVideoCutsMs(LONG_SECONDS);
      expect(observations.length).toBeGreaterThanOrEqual(cuts.length / 2);
      for (const o of observations)
        expect(
          cuts.some((c) => Math.abs(o.evidence.start_ms - c) <= 500),
          `moment at ${o.evidence.start_ms}`,
        ).toBe(true);

      // Pages of 4 give the same ranked list.
      const paged: Observation[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: ApiResponse<List<Observation>> = await client.get<List<Observation>>(`/v1/runs/${run.run_id}/observations${query}`);
        expect(page.status, page.text).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(4);
        paged.push(...page.body.data);
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(paged.map((o) => o.observation_id)).toEqual(observations.map((o) => o.observation_id));
      expect(list.moments.map((m) => m.id)).toEqual(observations.map((o) => (o.value as { moment_id: string }).moment_id));
    },
    HEAVY_TEST_MS,
  );
});
