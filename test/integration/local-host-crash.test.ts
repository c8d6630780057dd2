/**
 * A local host that dies leaves nothing behind, and two hosts never open one data directory
 * (functions/local/host-processes.ts, functions/local/data-dir-lock.ts): after `kill -9` of the
 * host mid-run, DynamoDB Local's JVM, the container tasks, their ffmpeg, the reaper and every
 * process carrying the host's mark are gone within seconds, and the next start takes the
 * directory over; a second host on a directory in
 * use fails at once naming the running host's pid and port; a lock whose pid is now another
 * process is taken over, and the processes recorded by the dead host are ended if, and only if,
 * they are provably its own.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { identityOf, processesMarked } from '../../functions/local/host-processes.js';
import { api, createScanner, type Account } from '../helpers/api.js';
import { longVideo, startRun, uploadFile } from '../helpers/runs.js';
import { childPids, dynamoDbJvmsOn, hostsOnOwnData, processRunning, readHostLock, spawnHost, untilGone, type HostProcess } from '../helpers/host-process.js';

const own = hostsOnOwnData('mss-crash-');
let dataDir = '';
const bystanders: number[] = [];

afterAll(async () => {
  await own.cleanUp();
  for (const pid of bystanders) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function start(env?: Record<string, string>): Promise<HostProcess> {
  const host = await own.start(env);
  dataDir = own.dataDir();
  return host;
}

async function stop(host: HostProcess): Promise<void> {
  host.child.kill('SIGINT');
  expect(await host.exited).toEqual({ code: 0, signal: null });
}

/** A detached process of the test's own (the host never started it). */
function bystander(args: string[]): number {
  const child = spawn('sleep', args, { stdio: 'ignore', detached: true });
  child.unref();
  bystanders.push(child.pid ?? 0);
  return child.pid ?? 0;
}

const port = (host: HostProcess) => Number(new URL(host.baseUrl).port);

describe.runIf(process.platform === 'linux')('a host that dies', () => {
  let first: HostProcess;
  let second: HostProcess;

  test('kill -9 during a run: its JVM, a running container task and what it started, its reaper, every process carrying its mark: all gone within seconds', async () => {
    // Every chunk of the run's source extracted by a container task: a child process running ffmpeg.
    first = await start({ SIGNALS_RUNNER: 'container', CHUNK_SECONDS: '10' });
    const pid = first.child.pid ?? 0;
    const { instance } = readHostLock(dataDir);
    const java = childPids(pid, 'java');
    expect(java, "DynamoDB Local is the host's direct child").toHaveLength(1);
    expect(dynamoDbJvmsOn(dataDir)).toEqual(java);
    const client = api(first.baseUrl, first.apiKey);
    const upload = await uploadFile(client, await longVideo(30));
    const scanner = await createScanner(client, {
      name: 'crash',
      type: 'extractor',
      instructions: 'Describe the file.',
      output: { fields: ['duration_seconds'] },
    });
    await startRun(client, scanner.scanner_id, { upload_id: upload.upload_id });
    // Killed while a container task (the entrypoint bundle on Node) runs, its ffmpeg perhaps too.
    const commandOf = (p: number) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        return '';
      }
    };
    let marked: number[] = [];
    let commands: string[] = [];
    for (let i = 0; i < 1200 && !commands.some((command) => command.includes('.cache/media-scanner/')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      marked = processesMarked(instance);
      commands = marked.map(commandOf);
    }
    const children = JSON.parse(await readFile(join(dataDir, 'host-children.json'), 'utf8')) as { children: { pid: number; what: string }[] };
    const reaper = children.children.find((c) => c.what === 'reaper')?.pid ?? 0;
    first.child.kill('SIGKILL');
    expect(commands.join('\n'), 'a container task was running').toContain('.cache/media-scanner/');
    await first.exited;
    await untilGone([...marked, reaper], 10_000);
    expect(processesMarked(instance)).toEqual([]);
    expect(dynamoDbJvmsOn(dataDir)).toEqual([]);
  }, 60_000);

  test('the next start takes the data directory over, says so, and serves the same account', async () => {
    second = await start();
    expect(second.output().stdout).toMatch(new RegExp(`previous host on this data directory \\(pid ${first.child.pid}\\) did not stop cleanly`));
    expect(second.apiKey).toBe(first.apiKey);
    const account = await api(second.baseUrl, second.apiKey).get<Account>('/v1/account');
    expect(account.status, account.text).toBe(200);
    expect(account.body.account_id).toBe(first.accountId);
    expect(dynamoDbJvmsOn(dataDir)).toHaveLength(1);
  });

  test("a second host on the same data directory fails at once, naming the running host's pid and port", async () => {
    const began = Date.now();
    const other = spawnHost({ dataDir });
    const exit = await other.exited;
    expect(exit.code, other.output().stdout).toBe(1);
    expect(Date.now() - began).toBeLessThan(25_000); // a Node start with tsx; nothing else is started
    const message = other.output().stderr;
    expect(message).toContain(`Another local host is running on the data directory ${dataDir}`);
    expect(message).toContain(`pid ${second.child.pid}, port ${port(second)} (${second.baseUrl})`);
    // The running host is untouched: still one JVM on the directory, still serving.
    expect(dynamoDbJvmsOn(dataDir)).toHaveLength(1);
    expect((await api(second.baseUrl, second.apiKey).get('/v1/account')).status).toBe(200);
    await stop(second);
  });

  test('a lock whose pid is now another process is taken over; of what the dead host recorded, only its provable own processes are ended', async () => {
    const self = identityOf(process.pid);
    if (!self) throw new Error('no /proc identity for the test process');
    const instance = 'f'.repeat(32);
    // This test's worker now has the pid the dead host had: another start time.
    await writeFile(
      join(dataDir, 'host.lock'),
      JSON.stringify({
        ...self,
        start_time: self.start_time - 1,
        instance,
        port: 4000,
        base_url: 'http://127.0.0.1:4000',
        started_at: new Date().toISOString(),
      }),
    );
    const leftover = bystander(['310']);
    const reusedPid = bystander(['311']);
    const found = (pid: number) => identityOf(pid) ?? { pid, boot_id: '', start_time: 0, command: [] };
    const children = [
      { ...found(leftover), what: 'DynamoDB Local' },
      // Same pid, another command line: a process the dead host never started.
      { ...found(reusedPid), command: ['java', '-jar', 'DynamoDBLocal.jar'], what: 'DynamoDB Local' },
    ];
    await writeFile(join(dataDir, 'host-children.json'), JSON.stringify({ instance, children }));

    const third = await start();
    expect(third.output().stdout).toMatch(new RegExp(`previous host on this data directory \\(pid ${process.pid}\\) did not stop cleanly`));
    expect(third.output().stdout).toContain(`Ended 1 process(es) it left running: ${leftover} (DynamoDB Local)`);
    expect(processRunning(leftover)).toBe(false);
    expect(processRunning(reusedPid)).toBe(true);
    expect(processRunning(process.pid)).toBe(true);
    expect(readHostLock(dataDir)).toMatchObject({ pid: third.child.pid, port: port(third) });
    await stop(third);
  });
});
