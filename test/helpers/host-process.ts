/**
 * A local host in a child process (`node --import tsx functions/local/start.ts`, as `npm start`
 * runs it), for tests that need a host of their own: the in-process host of the globalSetup owns
 * this process tree's env.
 *
 * The child is the host's own Node process, with tsx as a loader: signals reach the host itself.
 * Through tsx's CLI they would be relayed, and a host whose event loop is busy for more than about
 * 60 ms when SIGINT arrives would be SIGKILLed by tsx (exit 130) instead of stopping cleanly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { childEnv, repoRoot } from './processes.js';

export interface HostProcess {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  apiKey: string;
  accountId: string;
  /** Everything printed so far. */
  output: () => { stdout: string; stderr: string };
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  dataDir: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Settings of functions/config.ts for this host (e.g. CHUNK_SECONDS). */
  env?: Record<string, string>;
}

/** Spawns `start.ts` with PORT=0 and waits for the banner (URL, account, key). */
export function spawnHost(options: StartOptions): {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<HostProcess>;
  exited: HostProcess['exited'];
  output: HostProcess['output'];
} {
  // No transcriber unless asked for (`npm start` would pick pocketsphinx where it is installed): results stay the same on every machine.
  const env = childEnv({
    TRANSCRIBER: process.env.TRANSCRIBER ?? 'none',
    ...options.env,
    LOCAL_DATA_DIR: options.dataDir,
    PORT: '0',
    ...(options.apiKey !== undefined ? { LOCAL_API_KEY: options.apiKey } : {}),
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local/start.ts'], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const output = () => ({ stdout, stderr });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<HostProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`local host did not start in time:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 90_000);
    const check = () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      const apiKey = /^API key: (\S+)$/m.exec(stdout)?.[1];
      const accountId = /^Default account: (\S+)$/m.exec(stdout)?.[1];
      // The banner's last line: the lines between (transcriber, sandbox) are there too.
      if (url && apiKey && accountId && /^Try: curl/m.test(stdout)) {
        clearTimeout(timer);
        resolve({ child, baseUrl: url, apiKey, accountId, output, exited });
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`local host exited (${code ?? signal}) before it was ready:\n${stdout}\n${stderr}`));
    });
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output };
}

export function startHost(options: StartOptions): Promise<HostProcess> {
  return spawnHost(options).ready;
}

/**
 * Hosts a test file starts, one after another, on one data directory of its own (to stop and
 * start again on the same data); `cleanUp` (for afterAll) stops any still running and removes it.
 */
export function hostsOnOwnData(prefix: string) {
  const hosts: HostProcess[] = [];
  const stopping = new Set<HostProcess>();
  let dataDir = '';
  return {
    dataDir: () => dataDir,
    async start(env?: Record<string, string>, timeoutMs?: number): Promise<HostProcess> {
      dataDir ||= await mkdtemp(join(tmpdir(), prefix));
      const host = await startHost({ dataDir, ...(env ? { env } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
      hosts.push(host);
      // A host that dies under a test shows up there as a refused or reset request: say why it died.
      void host.exited.then(({ code, signal }) => {
        const crashed = (code !== null && code !== 0) || signal === 'SIGSEGV' || signal === 'SIGABRT' || signal === 'SIGBUS';
        if (crashed && !stopping.has(host))
          console.error(`local host ${host.baseUrl} exited (${code ?? signal}) while a test used it:\n${host.output().stderr.slice(-4_000)}`);
      });
      return host;
    },
    async cleanUp(): Promise<void> {
      for (const host of hosts) {
        stopping.add(host);
        if (host.child.exitCode === null && host.child.signalCode === null) {
          host.child.kill('SIGINT');
          await Promise.race([host.exited, new Promise((r) => setTimeout(r, 20_000))]);
        }
      }
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** running.json of a host's data dir (what the admin CLI reads). */
export function readRunning(dataDir: string): { base_url: string; dynamodb_endpoint: string; s3_endpoint: string; pid: number } {
  return JSON.parse(readFileSync(join(dataDir, 'running.json'), 'utf8')) as { base_url: string; dynamodb_endpoint: string; s3_endpoint: string; pid: number };
}

/** host.lock of a host's data dir: who holds it (functions/local/data-dir-lock.ts). */
export function readHostLock(dataDir: string): { pid: number; instance: string; port: number | null; start_time: number } {
  return JSON.parse(readFileSync(join(dataDir, 'host.lock'), 'utf8')) as { pid: number; instance: string; port: number | null; start_time: number };
}

/** Pids of the running DynamoDB Local JVMs whose database is the data dir's (Linux /proc; [] elsewhere). */
export function dynamoDbJvmsOn(dataDir: string): number[] {
  const dbPath = join(dataDir, 'dynamodb');
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0] === 'java' && argv.includes(dbPath) && processRunning(pid);
      } catch {
        return false;
      }
    });
}

/** true when something accepts TCP connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Pids of the direct children of `pid` whose command is `name` (Linux /proc; [] elsewhere). */
export function childPids(pid: number, name: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (match && match[1] === name && Number(match[2]) === pid) found.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return found;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Alive and not a zombie. An orphan's parent is init, which may never reap it (a container whose
 * pid 1 is no init): a killed orphan then stays a zombie, which holds nothing but its pid.
 */
export function processRunning(pid: number): boolean {
  if (!existsSync('/proc')) return processAlive(pid);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

/** Waits until none of the pids is running (zombies count as gone); fails naming those left after timeoutMs. */
export async function untilGone(pids: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter(processRunning);
    if (!left.length) return;
    if (Date.now() > deadline)
      throw new Error(
        `still running after ${timeoutMs} ms: ${left.map((pid) => `${pid} (${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 120)})`).join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
