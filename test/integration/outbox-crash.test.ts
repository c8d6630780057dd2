/**
 * Terminal events cannot be lost: a run's end and its events are one table transaction (the
 * outbox), so a host killed (SIGKILL) after a run completed and before its events went out
 * delivers them at its next start, exactly once. The host that dies here runs with the test hook
 * LOCAL_OUTBOX_RELAY=off (functions/local/host.ts, never read on AWS): it completes the run and
 * relays nothing, like a host killed at once after the completing transaction.
 */
import { afterAll, expect, test } from 'vitest';
import { api, createScanner } from '../helpers/api.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { balanceOf, creditsFor, sleep, submitRun, toneWav, uploadFile, waitForCompleted, type Run } from '../helpers/runs.js';
import { eventLog as eventsIn, type EventLogLine } from '../helpers/events.js';

const hosts = hostsOnOwnData('mss-outbox-crash-');
afterAll(() => hosts.cleanUp());

test('a run that completed just before a kill is announced once at the next start', async () => {
  const tone = await toneWav(20);
  const first = await hosts.start({ LOCAL_OUTBOX_RELAY: 'off' });
  const client = api(first.baseUrl, first.apiKey);
  const upload = await uploadFile(client, tone);
  const scanner = await createScanner(client, { name: 'summary', type: 'summarizer', instructions: 'Summarize the recording' });
  const before = await balanceOf(client);
  const submitted = await submitRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
  expect(submitted.status, submitted.text).toBe(202);
  const run: Run = submitted.body;
  await waitForCompleted(client, run.run_id, 60_000);
  expect(await eventsIn(hosts.dataDir()), 'nothing is relayed while the relay is off').toEqual([]);
  // DynamoDB Local may lose a write it acknowledged just before a kill; give it time to keep it.
  await sleep(2_000);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await hosts.start();
  const again = api(second.baseUrl, second.apiKey);
  const wanted = ['upload.ready', 'run.completed', 'analysis.completed'];
  let events: EventLogLine[] = [];
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(200)) {
    events = await eventsIn(hosts.dataDir());
    if (wanted.every((type) => events.some((line) => line.event.type === type))) break;
  }
  const byType = (type: string) => events.filter((line) => line.event.type === type);
  for (const type of wanted) expect(byType(type), `${type} exactly once`).toHaveLength(1);
  // The payload is the record as GET returns it now, and the run was charged once.
  const completed = byType('run.completed')[0]!.event;
  const current = await again.get<Run>(`/v1/runs/${run.run_id}`);
  expect(completed.data.object).toEqual(current.body);
  expect(current.body.billing).toEqual({ credits: creditsFor(upload.duration_ms ?? 0), state: 'charged' });
  expect(await balanceOf(again)).toBe(before - creditsFor(upload.duration_ms ?? 0));
  // The outbox is drained: nothing is announced twice.
  await sleep(500);
  expect(await eventsIn(hosts.dataDir())).toHaveLength(events.length);
}, 150_000);
