/**
 * A local host stopped (Ctrl-C) in the middle of a run, with another account's runs waiting for
 * its one slot, then started again on the same data: every unfinished run is resumed and
 * completes, charged exactly once; the slots counted in use are recomputed. Nothing stays stuck.
 */
import { afterAll, expect, test } from 'vitest';
import { api, createAccount, createScanner, type Account } from '../helpers/api.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { balanceOf, creditsFor, isTerminal, longVideo, observationsOf, startRun, toneWav, uploadFile, waitForCompleted, type Run } from '../helpers/runs.js';

const hosts = hostsOnOwnData('mss-run-restart-');
afterAll(() => hosts.cleanUp());

test('a run interrupted by a host restart is resumed, completes, and is charged exactly once', async () => {
  const video = await longVideo(120);
  const first = await hosts.start();
  const client = api(first.baseUrl, first.apiKey);
  const upload = await uploadFile(client, video);
  const scanner = await createScanner(client, { name: 'cuts', type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 9 });
  const before = await balanceOf(client);

  // A beginner account with a backlog: one run holds its slot, two wait for it.
  const beginner = await createAccount({ plan: 'beginner', credits: 50 }, hosts.dataDir());
  const backlogClient = api(first.baseUrl, beginner.apiKey);
  const tone = await uploadFile(backlogClient, await toneWav(90));
  const summarizer = await createScanner(backlogClient, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  const backlog: Run[] = [];
  for (let i = 0; i < 3; i++) backlog.push(await startRun(backlogClient, summarizer.scanner_id, { upload_id: tone.upload_id }));

  const run = await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
  const inFlight = await client.get<Run>(`/v1/runs/${run.run_id}`);
  expect(isTerminal(inFlight.body.status), 'the run must still be in flight when the host stops').toBe(false);
  const lastQueued = await backlogClient.get<Run>(`/v1/runs/${backlog[2]!.run_id}`);
  expect(lastQueued.body.status, 'the backlog must still be waiting when the host stops').toBe('queued');
  first.child.kill('SIGINT');
  expect(await first.exited).toEqual({ code: 0, signal: null });

  const second = await hosts.start();
  const again = api(second.baseUrl, second.apiKey);
  const backlogAgain = api(second.baseUrl, beginner.apiKey);
  const done = await waitForCompleted(again, run.run_id, 120_000);
  expect(done.observation_count).toBeGreaterThan(0);
  expect((await observationsOf(again, run.run_id)).length).toBe(done.observation_count);
  expect(await balanceOf(again)).toBe(before - creditsFor(upload.duration_ms ?? 0));

  const backlogDone = await Promise.all(backlog.map((r) => waitForCompleted(backlogAgain, r.run_id, 120_000)));
  backlogDone.slice(1).forEach((r, i) => expect(Date.parse(r.started_at!)).toBeGreaterThanOrEqual(Date.parse(backlogDone[i]!.completed_at!)));
  expect(await balanceOf(backlogAgain)).toBe(50 - 3 * creditsFor(tone.duration_ms ?? 0));
  expect((await backlogAgain.get<Account>('/v1/account')).body.concurrency).toEqual({ limit: 1, in_use: 0, queued: 0 });
}, 300_000);
