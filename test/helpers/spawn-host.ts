import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SpawnedHost {
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /** SIGINT, as Ctrl-C would; resolves with the exit code. */
  stop: () => Promise<number | null>;
}

/**
 * Starts `npm start`'s entry point as its own process (so its event loop is not the caller's),
 * on an ephemeral port, and reads the base URL and key it prints.
 */
export async function spawnLocalHost(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<SpawnedHost> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mss-host-')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local/start.ts'], {
    env: { ...process.env, LOCAL_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'ERROR', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 90_000;
  for (;;) {
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const apiKey = /API key: (sk_\w+)/.exec(output)?.[1];
    if (baseUrl && apiKey) {
      return {
        baseUrl,
        apiKey,
        dataDir,
        child,
        output: () => output,
        stop: () => {
          if (child.exitCode === null) child.kill('SIGINT');
          return exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The local host did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
