import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Where and how tests and benchmarks start the project's own processes (no vitest here: the bench uses it too). */
export const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Environment for child processes: none of the in-process host's settings leak into them. Its
 * instance mark (MEDIA_SCANNER_LOCAL_HOST) does, on purpose: should the test runner die, that
 * host's reaper ends them too (functions/local/host-processes.ts); a host started here marks its
 * own children with its own id.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // LOCAL_ALLOW_LOOPBACK_TARGETS too: a child opens loopback targets only when its caller says so.
  for (const name of ['LOCAL_API_KEY', 'LOCAL_DATA_DIR', 'PORT', 'HOST_KIND', 'TABLE_NAME', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'LOCAL_ALLOW_LOOPBACK_TARGETS'])
    delete env[name];
  return { ...env, ...extra };
}

/** tsx's own CLI, run by this Node (24): what `npx tsx` ends up running, without npm in between. */
export const tsxCli = join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The yt-dlp stand-in (no internet here): answers like yt-dlp's JSON output and download. */
export const fakeYtDlpPath = join(repoRoot, 'test', 'helpers', 'fake-yt-dlp.js');

/** Runs a tool (ffmpeg, ffprobe) to its end and returns what it wrote to stdout; a non-zero exit rejects with the end of its stderr. */
export function toolOutput(binary: string, args: readonly string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${binary} exited ${code}: ${Buffer.concat(err).toString().slice(-2000)}`)),
    );
  });
}

/**
 * A request rate far above any test's pace, for the accounts tests mint and their hosts' default
 * accounts: tests fire requests faster than any client should. The limit itself is tested on
 * accounts of its own (test/integration/request-limits.test.ts). The burst is what a request
 * queued behind a hundred concurrent others needs: its arrival time is taken when it arrives, and
 * one delayed past `burst / perSecond` seconds meets a bucket the others moved beyond it.
 */
export const TEST_REQUEST_RATE = { perSecond: 1000, burst: 100_000 } as const;

/** Gives the default account of the host on `dataDir` TEST_REQUEST_RATE (through the admin CLI). */
export async function allowTestPace(dataDir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        tsxCli,
        'functions/admin/cli.ts',
        'accounts',
        'request-rate',
        '--requests-per-second',
        String(TEST_REQUEST_RATE.perSecond),
        '--request-burst',
        String(TEST_REQUEST_RATE.burst),
      ],
      {
        cwd: repoRoot,
        env: childEnv({ LOCAL_DATA_DIR: dataDir }),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`accounts request-rate exited ${code}: ${stderr}`))));
  });
}
