/**
 * SIGKILL of the local host at several moments of a scanner run, then a start on the same data
 * directory. Whatever the moment, afterwards:
 * - nothing the dead host started is left running (DynamoDB Local's JVM, ffmpeg, container tasks,
 *   the reaper: every process carrying its instance mark);
 * - a run the client was answered 202 for still exists, and an idempotent retry of the POST with
 *   the same key answers that same run (byte for byte when the first answer was given);
 * - the account holds exactly one run for the request, which ends, and ends once (a terminal state
 *   seen before the kill is the state after it);
 * - it is charged or refunded exactly once (the ledger), and the wallet says so;
 * - its terminal events are in `<dataDir>/events.ndjson`, each exactly once by event id;
 * - its slot is released: the account shows none in use, and a new run starts and completes.
 * The moments: during the POST (after the reservation, before the answer: the host's test hook
 * LOCAL_CRASH_AFTER=run_reserved), just after the 202, mid-decode (the host's ffmpeg running), while
 * persisting (LOCAL_CRASH_AFTER=task:PersistResults: results written, the run not yet settled),
 * right after completion (LOCAL_OUTBOX_RELAY=off: completed, its events not yet relayed). The hooks
 * are functions/local/crash-hooks.ts and functions/local/host.ts; AWS never reads them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { processesMarked } from '../../functions/local/host-processes.js';
import { api, createScanner, type Account, type ApiResponse, type Client, type List } from '../helpers/api.js';
import { eventIdsByType, eventLog } from '../helpers/events.js';
import { childPids, dynamoDbJvmsOn, hostsOnOwnData, readHostLock, untilGone, type HostProcess } from '../helpers/host-process.js';
import { ledgerByWork, ledgerOf, ledgerProblems } from '../helpers/ledger.js';
import { balanceOf, isTerminal, longVideo, sleep, startRun, submitRun, toneWav, uploadFile, waitForCompleted, waitForRun, type Run } from '../helpers/runs.js';

interface Crash {
  /** The first host's settings: the moment's hook, if it has one. */
  env?: Record<string, string>;
  /** The source the run analyses (long enough for the moment to be caught). */
  source: () => Promise<string>;
  /**
   * Submits the run (with `key`) on the first host and sees it killed at the moment. Returns the
   * answer the client got, if it got one, and the run as the client last saw it before the kill.
   */
  act: (context: { host: HostProcess; client: Client; submit: () => Promise<ApiResponse<Run>> }) => Promise<{ answer?: ApiResponse<Run>; lastSeen?: Run }>;
}

/** The host's direct ffmpeg children (signal extraction in-process runs ffmpeg as the host's child). */
const ffmpegOf = (host: HostProcess) => childPids(host.child.pid ?? 0, 'ffmpeg');

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

const moments: Record<string, Crash> = {
  'during the POST, after the reservation': {
    env: { LOCAL_CRASH_AFTER: 'run_reserved' },
    source: () => toneWav(20),
    act: async ({ submit }) => {
      const lost = await submit().then(
        (answer) => answer,
        (error: unknown) => error,
      );
      expect(lost, 'the host must die before it answers').toBeInstanceOf(Error);
      return {};
    },
  },
  'just after the 202': {
    source: () => toneWav(20),
    act: async ({ host, submit }) => {
      const answer = await submit();
      host.child.kill('SIGKILL');
      expect(answer.status, answer.text).toBe(202);
      return { answer, lastSeen: answer.body };
    },
  },
  'mid-decode': {
    source: () => longVideo(300),
    act: async ({ host, client, submit }) => {
      const answer = await submit();
      expect(answer.status, answer.text).toBe(202);
      await until('ffmpeg decoding the run', () => (ffmpegOf(host).length ? true : undefined));
      const lastSeen = (await client.get<Run>(`/v1/runs/${answer.body.run_id}`)).body;
      host.child.kill('SIGKILL');
      expect(lastSeen.status).toBe('processing');
      return { answer, lastSeen };
    },
  },
  'while persisting (results written, the run not yet settled)': {
    env: { LOCAL_CRASH_AFTER: 'task:PersistResults' },
    source: () => toneWav(20),
    act: async ({ client, submit }) => {
      const answer = await submit();
      expect(answer.status, answer.text).toBe(202);
      // The host kills itself; the run never shows completed on it.
      const lastSeen = await until('the host to die while persisting', async () => {
        const read = await client.get<Run>(`/v1/runs/${answer.body.run_id}`).catch(() => undefined);
        if (read) expect(read.body.status, 'the run completed: the hook did not fire').not.toBe('completed');
        return read ? undefined : true;
      });
      expect(lastSeen).toBe(true);
      return { answer };
    },
  },
  'right after completion, before its events went out': {
    env: { LOCAL_OUTBOX_RELAY: 'off' },
    source: () => toneWav(20),
    act: async ({ host, client, submit }) => {
      const answer = await submit();
      expect(answer.status, answer.text).toBe(202);
      const lastSeen = await until('the run to complete', async () => {
        const read = await client.get<Run>(`/v1/runs/${answer.body.run_id}`);
        return isTerminal(read.body.status) ? read.body : undefined;
      });
      host.child.kill('SIGKILL');
      expect(lastSeen.status).toBe('completed');
      return { answer, lastSeen };
    },
  },
};

/** Sends until the answer is not 409 idempotency_request_in_progress (the dead attempt's record holds the key until its deadline). */
async function retry(send: () => Promise<ApiResponse<Run>>): Promise<ApiResponse<Run>> {
  for (const deadline = Date.now() + 45_000; ; await sleep(1_000)) {
    const response = await send();
    const code = (response.body as unknown as { error?: { code?: string } }).error?.code;
    if (response.status !== 409 || code !== 'idempotency_request_in_progress' || Date.now() > deadline) return response;
  }
}

describe.concurrent('SIGKILL of the local host during a run, then a restart on the same data', () => {
  // Found by this suite: DynamoDB Local answers a TransactWriteItems before the transaction is on
  // disk, and a host killed at once took it down with SIGKILL: the scanner a client had a 201 for
  // was gone after the restart (2 kills in 8). Its JVM now gets SIGTERM and keeps it.
  test('an answer given just before a kill stands after it (a 201, then SIGKILL at once, 4 times)', async () => {
    const hosts = hostsOnOwnData('mss-rel-ack-');
    try {
      let host = await hosts.start();
      for (let round = 0; round < 4; round++) {
        const created = await api(host.baseUrl, host.apiKey).post<{ scanner_id: string }>('/v1/scanners', {
          name: `kill ${round}`,
          type: 'summarizer',
          instructions: 'Summarize the recording',
        });
        host.child.kill('SIGKILL');
        expect(created.status, created.text).toBe(201);
        await host.exited;
        host = await hosts.start();
        const read = await api(host.baseUrl, host.apiKey).get(`/v1/scanners/${created.body.scanner_id}`);
        expect(read.status, `round ${round}: the scanner answered 201 before the kill`).toBe(200);
      }
    } finally {
      await hosts.cleanUp();
    }
  });

  test.for(Object.entries(moments))('%s', async ([, moment]) => {
    const hosts = hostsOnOwnData('mss-rel-crash-');
    try {
      const first = await hosts.start(moment.env);
      const dataDir = hosts.dataDir();
      const { instance } = readHostLock(dataDir);
      const reaper = (JSON.parse(readFileSync(join(dataDir, 'host-children.json'), 'utf8')) as { children: { pid: number; what: string }[] }).children.find(
        (c) => c.what === 'reaper',
      )?.pid;
      const client = api(first.baseUrl, first.apiKey);
      const upload = await uploadFile(client, await moment.source());
      const scanner = await createScanner(client, { name: 'crash', type: 'summarizer', instructions: 'Summarize the recording' });
      const opening = await balanceOf(client);
      const key = randomUUID();
      const body = { upload_id: upload.upload_id };
      const { answer, lastSeen } = await moment.act({
        host: first,
        client,
        submit: () => submitRun(client, scanner.scanner_id, body, { 'idempotency-key': key }),
      });

      // Nothing the dead host started is left running.
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await untilGone([...processesMarked(instance), ...(reaper ? [reaper] : [])], 10_000);
      expect(processesMarked(instance), "processes carrying the dead host's mark").toEqual([]);
      expect(dynamoDbJvmsOn(dataDir), 'DynamoDB Local on the data directory').toEqual([]);

      const second = await hosts.start();
      const again = api(second.baseUrl, second.apiKey);
      // What the client was told exists, as it was told when it had ended.
      if (answer) {
        const read = await again.get<Run>(`/v1/runs/${answer.body.run_id}`);
        expect(read.status, `the run answered 202 before the kill is gone after it: ${read.text}`).toBe(200);
      }
      // The idempotent retry of the interrupted POST answers the same run.
      const retried = await retry(() => submitRun(again, scanner.scanner_id, body, { 'idempotency-key': key }));
      expect(retried.status, retried.text).toBe(202);
      if (answer) {
        expect(retried.body.run_id).toBe(answer.body.run_id);
        expect(retried.text, 'the retry replays the first answer').toBe(answer.text);
      }
      const runId = retried.body.run_id;
      const run = await waitForRun(again, runId, 120_000);
      if (lastSeen && isTerminal(lastSeen.status)) {
        expect({ status: run.status, completed_at: run.completed_at }, 'a run that had ended ends once').toEqual({
          status: lastSeen.status,
          completed_at: lastSeen.completed_at,
        });
      }
      // Exactly one run for the request.
      const analyses = await again.get<List<{ run_id: string | null }>>('/v1/analyses?kind=scanner_run');
      expect(analyses.body.data.map((a) => a.run_id)).toEqual([runId]);

      // Charged or refunded exactly once.
      const balance = await balanceOf(again);
      const ledger = await ledgerOf(dataDir, first.accountId);
      expect(ledgerProblems(ledger, balance)).toEqual([]);
      const work = ledgerByWork(ledger).get(runId);
      expect(work, `the ledger of ${runId}`).toMatchObject({ reservations: 1, refunds: run.billing.state === 'refunded' ? 1 : 0 });
      expect(run.billing.state).toBe(run.status === 'completed' ? 'charged' : 'refunded');
      expect(balance).toBe(run.billing.state === 'charged' ? opening - run.billing.credits : opening);

      // Its terminal events, each exactly once by id.
      const ended = run.status === 'completed' ? 'completed' : 'failed';
      await until(
        "the run's terminal events",
        async () => {
          const byType = eventIdsByType(await eventLog(dataDir), 'run_id', runId);
          return byType.has(`run.${ended}`) && byType.has(`analysis.${ended}`) ? byType : undefined;
        },
        15_000,
        200,
      );
      await sleep(500);
      expect(Object.fromEntries([...eventIdsByType(await eventLog(dataDir), 'run_id', runId)].map(([type, ids]) => [type, ids.size]))).toEqual({
        [`run.${ended}`]: 1,
        [`analysis.${ended}`]: 1,
      });

      // Its slot is released: none in use, and the next run goes through.
      expect((await again.get<Account>('/v1/account')).body.concurrency).toMatchObject({ in_use: 0, queued: 0 });
      const next = await uploadFile(again, await toneWav(5));
      await waitForCompleted(again, (await startRun(again, scanner.scanner_id, { upload_id: next.upload_id })).run_id, 60_000);

      second.child.kill('SIGINT');
      expect(await second.exited).toEqual({ code: 0, signal: null });
      expect(dynamoDbJvmsOn(dataDir)).toEqual([]);
    } finally {
      await hosts.cleanUp();
    }
  });
});
