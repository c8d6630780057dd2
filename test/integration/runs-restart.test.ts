/**
 * A local host stopped (Ctrl-C) in the middle of a run, then started again on the same data:
 * the unfinished run is resumed and completes, charged exactly once. Nothing stays stuck.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { api, createScanner } from '../helpers/api.js';
import { startHost, type HostProcess } from '../helpers/host-process.js';
import { balanceOf, creditsFor, isTerminal, longVideo, observationsOf, startRun, uploadFile, waitForCompleted, type Run } from '../helpers/runs.js';

const hosts: HostProcess[] = [];
let dataDir = '';

afterAll(async () => {
  for (const host of hosts) {
    if (host.child.exitCode === null && host.child.signalCode === null) {
      host.child.kill('SIGINT');
      await Promise.race([host.exited, new Promise((r) => setTimeout(r, 20_000))]);
    }
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<HostProcess> {
  const host = await startHost({ dataDir });
  hosts.push(host);
  return host;
}

test('a run interrupted by a host restart is resumed, completes, and is charged exactly once', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-run-restart-'));
  const video = await longVideo(120);
  const first = await start();
  const client = api(first.baseUrl, first.apiKey);
  const upload = await uploadFile(client, video);
  const scanner = await createScanner(client, { name: 'cuts', type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 9 });
  const before = await balanceOf(client);

  const run = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
  const inFlight = await client.get<Run>(`/v1/runs/${run.run_id}`);
  expect(isTerminal(inFlight.body.status), 'the run must still be in flight when the host stops').toBe(false);
  first.child.kill('SIGINT');
  expect(await first.exited).toEqual({ code: 0, signal: null });

  const second = await start();
  expect(second.output().stdout).toMatch(/Resumed 1 run\(s\)/);
  const again = api(second.baseUrl, second.apiKey);
  const done = await waitForCompleted(again, run.run_id, 120_000);
  expect(done.observation_count).toBeGreaterThan(0);
  expect((await observationsOf(again, run.run_id)).length).toBe(done.observation_count);
  expect(await balanceOf(again)).toBe(before - creditsFor(upload.duration_ms ?? 0));
}, 300_000);
