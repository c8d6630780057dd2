/**
 * The container path of signal extraction (PlanChunks' runner `container`, taken for chunked
 * sources): the local host runs the ExtractChunkSignals container task as a child process per
 * chunk, the same entrypoint the Fargate image runs, and the run completes on its signals.
 */
import { bubblewrapWorks, Sandbox } from '../../functions/local/sandbox/sandbox.js';
import { UnitProcesses } from '../../functions/local/unit-processes.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { LocalContainerTasks } from '../../functions/local/container-tasks.js';
import { units } from '../../functions/runtime/contracts.js';
import { workflows } from '../../functions/workflows/registry.js';
import { api, createScanner } from '../helpers/api.js';
import { startHost, type HostProcess } from '../helpers/host-process.js';
import { longVideo, observationsOf, startRun, uploadFile, waitForCompleted } from '../helpers/runs.js';

const signalsTask = workflows.analysis.containerTasks.SignalsTaskDefinitionArn;
let host: HostProcess | undefined;
let dataDir = '';

afterAll(async () => {
  if (host && host.child.exitCode === null && host.child.signalCode === null) {
    host.child.kill('SIGINT');
    await Promise.race([host.exited, new Promise((r) => setTimeout(r, 20_000))]);
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The log line the container entrypoint writes when its task is done (never written in-process). */
const containerTasksDone = (stdout: string): { result: { signalsKey: string } }[] =>
  stdout
    .split('\n')
    .filter((line) => line.includes('"Container task done"'))
    .map((line) => JSON.parse(line) as { result: { signalsKey: string } });

test('a chunked source is extracted by one child process per chunk, and the run completes on their signals', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-signals-container-'));
  // 30 s with cuts at 10 s and 20 s; 15 s chunks put each cut inside a chunk (auto: chunked -> container).
  const video = await longVideo(30);
  host = await startHost({ dataDir, env: { CHUNK_SECONDS: '15', SIGNALS_RUNNER: 'auto' } });
  const client = api(host.baseUrl, host.apiKey);
  const upload = await uploadFile(client, video);
  const fields = ['duration_seconds', 'scene_count'];
  const scanner = await createScanner(client, { name: 'describe', type: 'extractor', instructions: 'Describe the file.', output: { fields } });

  const run = await waitForCompleted(client, (await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id })).run_id, 120_000);

  const done = containerTasksDone(host.output().stdout);
  expect(done.map((d) => d.result.signalsKey).sort()).toEqual(
    [0, 1].map((index) => `artifacts/${host!.accountId}/${run.analysis_id}/chunks/${index}/signals.json`),
  );
  // One answer over the merged signals of both chunks: the whole 30 s and both cuts.
  expect((await observationsOf(client, run.run_id)).map((o) => o.value)).toEqual([{ duration_seconds: 30, scene_count: 3 }]);
}, 240_000);

test('a container task that exits non-zero fails its state as Step Functions reports it (States.TaskFailed), so Retry and Catch apply', async () => {
  const sandbox = bubblewrapWorks() ? await Sandbox.create() : undefined;
  const run = new LocalContainerTasks(new UnitProcesses(sandbox)).handler(signalsTask, units.container('analysis', 'SignalsTaskDefinitionArn'));
  const overrides = (value: string) => ({
    Overrides: { ContainerOverrides: [{ Name: 'extract-signals', Environment: [{ Name: 'TASK_INPUT', Value: value }] }] },
  });
  await expect(run(overrides('{"accountId":"acct_x"}'))).rejects.toMatchObject({
    name: 'States.TaskFailed',
    message: expect.stringContaining('exited with status 1') as unknown,
  });
  await expect(run({ Overrides: { ContainerOverrides: [] } })).rejects.toThrow('no container override for extract-signals');
}, 60_000);
