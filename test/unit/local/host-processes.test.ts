/**
 * The local host's children never outlive it (functions/local/host-processes.ts), shown on a
 * stand-in host: a Node process that marks itself, starts the reaper, one child tied by setpriv
 * and one spawned the way the adapters spawn ffmpeg (untied, with a child of its own). Linux only.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  endLeftovers,
  HOST_INSTANCE_VARIABLE,
  identityOf,
  processesMarked,
  stillRunning,
  type ProcessIdentity,
} from '../../../functions/local/host-processes.js';
import { processRunning, untilGone } from '../../helpers/host-process.js';
import { repoRoot } from '../../helpers/processes.js';

const linux = process.platform === 'linux';
const modulePath = join(repoRoot, 'functions', 'local', 'host-processes.ts');

/** The stand-in host: prints its children's pids, stops cleanly on a line on stdin. */
const standInHost = `
import { spawn } from 'node:child_process';
import { HostChildren, HOST_INSTANCE_VARIABLE, spawnTied, startReaper } from ${JSON.stringify(modulePath)};
const [dataDir, instance] = process.argv.slice(1);
process.env[HOST_INSTANCE_VARIABLE] = instance;
const children = new HostChildren(dataDir, instance);
const reaper = startReaper(instance, children);
const tied = spawnTied('sleep', ['300'], { stdio: 'ignore' });
children.track(tied, 'tied');
const untied = spawn('/bin/sh', ['-c', 'sleep 300 & wait'], { stdio: 'ignore' });
process.stdin.on('data', () => {
  reaper.release();
  children.close();
  setTimeout(() => process.exit(0), 200);
});
console.log(JSON.stringify({ tied: tied.pid, untied: untied.pid, reaper: reaper.pid }));
`;

const started: number[] = [];
let dataDir = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-host-processes-'));
});

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** A process of the test's own (no mark), detached so that nothing ends it along with anything else. */
function bystander(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
  child.unref();
  if (child.pid === undefined) throw new Error(`${command} did not start`);
  started.push(child.pid);
  return child.pid;
}

async function startStandIn(
  instance: string,
): Promise<{ host: ChildProcessWithoutNullStreams; pids: { tied: number; untied: number; reaper: number }; marked: number[] }> {
  const host = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', standInHost, dataDir, instance], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(host.pid ?? 0);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    host.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
    });
    host.once('exit', (code) => reject(new Error(`stand-in host exited (${code})`)));
  });
  const pids = JSON.parse(line) as { tied: number; untied: number; reaper: number };
  started.push(...Object.values(pids));
  // The tied sleep, the untied sh and its own sleep.
  let marked: number[] = [];
  for (let i = 0; i < 100 && marked.length < 3; i++) {
    marked = processesMarked(instance);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  started.push(...marked);
  expect(marked).toEqual(expect.arrayContaining([pids.tied, pids.untied]));
  expect(marked).toHaveLength(3);
  return { host, pids, marked };
}

describe.runIf(linux)('children of a host', () => {
  test('a host killed with SIGKILL takes along its tied child, the marked processes it did not spawn itself and their children, nothing else', async () => {
    const instance = randomBytes(16).toString('hex');
    const other = bystander('sleep', ['300']);
    const { host, pids, marked } = await startStandIn(instance);
    expect(identityOf(pids.tied)?.command).toEqual(['sleep', '300']); // setpriv execs: same pid, the command's own argv
    // Recorded as spawned (setpriv's command line), it is still provably the same process.
    const records = (JSON.parse(await readFile(join(dataDir, 'host-children.json'), 'utf8')) as { children: (ProcessIdentity & { what: string })[] }).children;
    const tied = records.find((record) => record.what === 'tied');
    expect(tied?.command).toEqual(['setpriv', '--pdeathsig', 'KILL', '--', 'sleep', '300']);
    expect(tied && stillRunning(tied, true)).toBe(true);
    expect(tied && stillRunning({ ...tied, command: ['sleep', '301'] }, true)).toBe(false);

    host.kill('SIGKILL');
    await untilGone([...marked, pids.reaper], 10_000);
    expect(processesMarked(instance)).toEqual([]);
    expect(processRunning(other), 'an unmarked process lives on').toBe(true);
  });

  test("after a clean stop the reaper leaves without ending anything (an in-process host never ends its process's other children)", async () => {
    const instance = randomBytes(16).toString('hex');
    const { host, pids, marked } = await startStandIn(instance);
    host.stdin.write('stop\n');
    await new Promise((resolve) => host.once('exit', resolve));
    // The reaper left; the tied child went with the host (the kernel's tie); the untied ones stay.
    await untilGone([pids.reaper, pids.tied], 10_000);
    expect(processRunning(pids.untied)).toBe(true);
    expect(marked.filter((pid) => processRunning(pid))).toHaveLength(2);
  });
});

describe.runIf(linux)('leftovers of a host that died', () => {
  test('ends the recorded processes that are provably the same and the marked ones; spares a reused pid and another command', async () => {
    const previous = randomBytes(16).toString('hex');
    const recorded = bystander('sleep', ['301']);
    const otherCommand = bystander('sleep', ['302']);
    const otherStart = bystander('sleep', ['303']);
    const marked = bystander('sleep', ['304'], { ...process.env, [HOST_INSTANCE_VARIABLE]: previous });
    const identity = (pid: number) => {
      const found = identityOf(pid);
      if (!found) throw new Error(`no identity for ${pid}`);
      return found;
    };
    const children = [
      { ...identity(recorded), what: 'recorded' },
      { ...identity(otherCommand), command: ['sleep', '999'], what: 'another command' },
      { ...identity(otherStart), start_time: identity(otherStart).start_time - 1, what: 'another start' },
    ];
    await writeFile(join(dataDir, 'host-children.json'), JSON.stringify({ instance: previous, children }));

    const ended = await endLeftovers(dataDir, previous);
    expect(ended.map((p) => p.pid).sort()).toEqual([recorded, marked].sort());
    expect([recorded, marked].filter(processRunning)).toEqual([]);
    expect([otherCommand, otherStart].filter(processRunning)).toEqual([otherCommand, otherStart]);
    await expect(readFile(join(dataDir, 'host-children.json'))).rejects.toThrow(/ENOENT/);
  });

  test('identity: the start time is read past a command name with spaces and parentheses; a zombie has none', async () => {
    const oddName = join(dataDir, 'odd) (name');
    await copyFile('/bin/sleep', oddName);
    const odd = bystander('/bin/sh', ['-c', `chmod +x '${oddName}' && exec '${oddName}' 300`]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stat = await readFile(`/proc/${odd}/stat`, 'utf8');
    expect(stat).toContain('(odd) (name)');
    expect(identityOf(odd)).toMatchObject({ pid: odd, start_time: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]), command: [oddName, '300'] });

    // sh's first child outlives sh's exec into a sleep, which never reaps it: a zombie.
    // (A child that ended before the exec could be reaped by sh itself.)
    const parent = spawn('/bin/sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(parent.pid ?? 0);
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))));
    await untilGone([zombie], 5_000);
    expect(await readFile(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /);
    expect(identityOf(zombie)).toBeUndefined();
  });
});
