/**
 * No process the local host starts outlives it, however the host ends (docs/local-host.md).
 * Three layers, each covering what the one before cannot:
 *
 * 1. A kernel tie. The children the host spawns itself (DynamoDB Local's JVM, container tasks)
 *    start through util-linux `setpriv --pdeathsig KILL -- <command>`: setpriv asks the kernel
 *    (prctl PR_SET_PDEATHSIG, which Node cannot call) to SIGKILL the process when the host dies,
 *    for any reason (SIGKILL and the OOM killer included; DynamoDB Local gets SIGTERM, so that it
 *    keeps the writes it acknowledged: spawnTied), then execs the command, so the child
 *    keeps its pid and the host stays its parent; no supervisor process. util-linux is an
 *    essential package on Debian and Ubuntu: setpriv is on every install and base image.
 * 2. An instance mark and a reaper. The host puts a random instance id in its own environment
 *    (MEDIA_SCANNER_LOCAL_HOST), so every descendant carries it, the ones it never spawns itself
 *    too: ffmpeg and ffprobe started by the adapters, the children of container tasks. A reaper
 *    (`/bin/sh`, a few hundred KB, in a session of its own so that terminal signals miss it)
 *    waits on a pipe from the host. When the pipe closes without the host having said "stop",
 *    the host is dead, and the reaper ends every process whose environment carries the mark
 *    (SIGTERM, then SIGKILL 2 s later).
 * 3. Records. What the host started (pid, boot id, start time, command line) is kept in
 *    `<dataDir>/host-children.json`, and its instance id in host.lock (data-dir-lock.ts). A start
 *    after a crash ends the recorded processes that are provably the same ones (same boot, start
 *    time and command line) and any process carrying the dead instance's mark; nothing else.
 *
 * Layers 2 and 3 read /proc (Linux). Elsewhere children are only stopped by a clean stop.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';

/** The environment variable that marks the host's descendants with its instance id. */
export const HOST_INSTANCE_VARIABLE = 'MEDIA_SCANNER_LOCAL_HOST';

/** One process, told apart from any later process with the same pid. */
export interface ProcessIdentity {
  pid: number;
  /** /proc/sys/kernel/random/boot_id: start times count from this boot. */
  boot_id: string;
  /** Clock ticks from boot to the process's start (/proc/<pid>/stat, field 22). */
  start_time: number;
  /** Its argv, as /proc/<pid>/cmdline shows it. */
  command: string[];
}

interface ChildRecord extends ProcessIdentity {
  what: string;
}

interface ChildrenFile {
  instance: string;
  children: ChildRecord[];
}

const hasProc = existsSync('/proc/self/stat');
let bootId: string | undefined;

/** A running process's identity (Linux); undefined when it is gone, a zombie, or there is no /proc. */
export function identityOf(pid: number): ProcessIdentity | undefined {
  if (!hasProc) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, the fields after it do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (command.at(-1) === '') command.pop();
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return { pid, boot_id: bootId, start_time: Number(fields[19]), command };
  } catch {
    return undefined;
  }
}

/** This process as another one records it: on Linux from /proc, elsewhere from what Node knows. */
export const selfIdentity = (): ProcessIdentity =>
  identityOf(process.pid) ?? { pid: process.pid, boot_id: '', start_time: 0, command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)] };

/**
 * Whether the process recorded is still running: the same pid in the same boot with the same start
 * time, and (withCommand) the same command line. Without /proc only the pid can be checked, which
 * says "maybe", so the answer is `unprovable`: true for a lock holder, never enough to kill.
 */
export function stillRunning(recorded: ProcessIdentity, withCommand: boolean): boolean | 'unprovable' {
  if (!hasProc) {
    try {
      process.kill(recorded.pid, 0);
      return 'unprovable';
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'unprovable' : false;
    }
  }
  const now = identityOf(recorded.pid);
  if (!now || now.boot_id !== recorded.boot_id || now.start_time !== recorded.start_time) return false;
  if (!withCommand) return true;
  // A child caught between setpriv's start and its exec still shows setpriv's own command line;
  // after the exec, the command recorded is the one it runs behind the tie it was spawned with.
  const same = (command: string[]) => command.length === recorded.command.length && command.every((arg, i) => arg === recorded.command[i]);
  const tied = recorded.command[0] === 'setpriv' && recorded.command[1] === '--pdeathsig' && recorded.command[3] === '--' ? recorded.command.slice(0, 4) : [];
  return same(now.command) || same([...tied, ...now.command]);
}

/** What the kernel sends a tied child when the host dies: SIGKILL, or SIGTERM for a child that must end cleanly. */
type DeathSignal = 'KILL' | 'TERM';
const tie = (signal: DeathSignal) => ['setpriv', '--pdeathsig', signal, '--'];
let tieWorks: boolean | undefined;

/** `setpriv --pdeathsig <signal> --` where it works (checked once), else nothing (said once). */
function tiePrefix(signal: DeathSignal): string[] {
  if (tieWorks === undefined) {
    const [command = '', ...args] = tie('KILL');
    const probe = process.platform === 'linux' ? spawnSync(command, [...args, 'true'], { stdio: 'ignore' }) : undefined;
    tieWorks = !!probe && !probe.error && probe.status === 0;
    if (process.platform === 'linux' && !tieWorks) {
      console.warn('local host: setpriv (util-linux 2.33+) was not found; children are still ended by the reaper and at the next start.');
    }
  }
  return tieWorks ? tie(signal) : [];
}

/**
 * `spawn`, the child to be signalled by the kernel when this process dies (layer 1): SIGKILL, or
 * SIGTERM for DynamoDB Local, which may not yet have committed a transaction it acknowledged
 * (a SIGKILL then loses it; on SIGTERM it shuts down in order, in about 0.4 s).
 */
export function spawnTied(command: string, args: readonly string[], options: SpawnOptions, deathSignal: DeathSignal = 'KILL'): ChildProcess {
  const [file = command, ...rest] = [...tiePrefix(deathSignal), command, ...args];
  return spawn(file, rest, options);
}

const childrenFile = (dataDir: string) => join(dataDir, 'host-children.json');

/** The host's record of the processes it started, kept in the data directory until it stops (layer 3). */
export class HostChildren {
  private readonly records = new Map<number, ChildRecord>();
  private closed = false;

  constructor(
    private readonly dataDir: string,
    readonly instance: string,
  ) {}

  /** Records a child until it exits. */
  track(child: ChildProcess, what: string): void {
    const identity = child.pid === undefined ? undefined : identityOf(child.pid);
    if (!identity) return; // it failed to start (its 'error' says why), or there is no /proc to prove it by later
    const pid = identity.pid;
    this.records.set(pid, { ...identity, command: child.spawnargs, what });
    this.write();
    child.once('exit', () => {
      this.records.delete(pid);
      this.write();
    });
  }

  /** Synchronous, so that records are written in order, even from exit handlers; never fatal (layers 1 and 2 still hold). */
  private write(): void {
    if (this.closed) return;
    const file = childrenFile(this.dataDir);
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify({ instance: this.instance, children: [...this.records.values()] } satisfies ChildrenFile, null, 2));
      renameSync(`${file}.tmp`, file);
    } catch (error) {
      console.warn(`local host: could not record its children in ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A clean stop: nothing is left to end. */
  close(): void {
    this.closed = true;
    rmSync(childrenFile(this.dataDir), { force: true });
  }
}

/** Pids of the processes whose environment carries the instance's mark (Linux; [] elsewhere). */
export function processesMarked(instance: string): number[] {
  if (!hasProc) return [];
  const mark = `${HOST_INSTANCE_VARIABLE}=${instance}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark);
      } catch {
        return false; // gone, or another user's
      }
    });
}

function readChildrenFile(dataDir: string): ChildrenFile | undefined {
  try {
    return JSON.parse(readFileSync(childrenFile(dataDir), 'utf8')) as ChildrenFile;
  } catch {
    return undefined;
  }
}

/**
 * Ends what a host that did not stop cleanly left running on this data directory (layer 3): the
 * processes recorded in host-children.json that are provably the same ones, and the processes
 * carrying the mark of that host's instance. Waits (up to 10 s) until they are gone; returns them.
 */
export async function endLeftovers(dataDir: string, previousInstance: string | undefined): Promise<ChildRecord[]> {
  const file = readChildrenFile(dataDir);
  const ended = new Map<number, ChildRecord>();
  for (const record of file?.children ?? []) if (stillRunning(record, true) === true) ended.set(record.pid, record);
  for (const instance of new Set([previousInstance, file?.instance])) {
    if (!instance) continue;
    for (const pid of processesMarked(instance)) {
      const identity = identityOf(pid);
      if (identity && !ended.has(pid)) ended.set(pid, { ...identity, what: 'descendant' });
    }
  }
  ended.delete(process.pid);
  for (const pid of ended.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 10_000;
  while ([...ended.values()].some((record) => stillRunning(record, false) === true) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  rmSync(childrenFile(dataDir), { force: true });
  return [...ended.values()];
}

/**
 * Layer 2's reaper: $1 is the mark. GNU grep (-z: NUL-separated environ entries) lists every
 * process carrying it; a few rounds catch what was forked meanwhile. Zombies show no environment.
 * Each is first asked to stop (SIGTERM: DynamoDB Local then commits what it acknowledged, which a
 * SIGKILL would lose) and killed (SIGKILL) if it is still there 2 s later.
 */
const REAPER_SCRIPT = `IFS= read -r line
[ "$line" = stop ] && exit 0
rounds=0
while [ "$rounds" -lt 40 ]; do
  pids=$(grep -lzxF -e "$1" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p')
  [ -n "$pids" ] || exit 0
  if [ "$rounds" -lt 20 ]; then kill -TERM $pids 2>/dev/null; else kill -9 $pids 2>/dev/null; fi
  sleep 0.1
  rounds=$((rounds + 1))
done`;

interface Reaper {
  pid: number | undefined;
  /** The host is stopping cleanly: the reaper exits without ending anything. */
  release(): void;
}

/** Starts the reaper of the processes marked with `instance` (Linux; a no-op elsewhere). */
export function startReaper(instance: string, children: HostChildren): Reaper {
  if (!hasProc) return { pid: undefined, release: () => undefined };
  const env = { ...process.env };
  delete env[HOST_INSTANCE_VARIABLE];
  const reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'media-scanner-reaper', `${HOST_INSTANCE_VARIABLE}=${instance}`], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env,
  });
  children.track(reaper, 'reaper');
  // The host's event loop never waits for it: it is there for when the host is gone.
  reaper.unref();
  const pipe = reaper.stdin as Socket | null;
  pipe?.unref();
  pipe?.on('error', () => undefined);
  return { pid: reaper.pid, release: () => void pipe?.end('stop\n') };
}
