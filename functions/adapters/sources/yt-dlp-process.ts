import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../domain/errors.js';
import { launch } from '../child-process.js';

/**
 * yt-dlp as a child process: argv only, a minimal environment, its own process group, bounded
 * output, time and (for downloads) bytes on disk.
 */

/** No yt-dlp on this deployment: 503, naming what to install. */
export const ytDlpUnavailable = () =>
  new ApiError(
    'provider_unavailable',
    'Resolving provider pages needs yt-dlp, which this deployment lacks: install the Debian package yt-dlp or set YT_DLP_PATH.',
  );

interface YtDlpRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The files in `dir` grew past maxBytes (yt-dlp cannot bound a download of unknown size). */
  overBytes: boolean;
}

const MAX_STDOUT_CHARS = 32 * 1024 * 1024;
const MAX_STDERR_CHARS = 64 * 1024;

/**
 * What yt-dlp inherits from our environment: PATH, and the local host's instance mark
 * (functions/local/host-processes.ts HOST_INSTANCE_VARIABLE) by which its reaper ends a dead
 * host's descendants. Nothing else: no credentials reach a third-party program.
 */
export const inheritedVariables = ['PATH', 'MEDIA_SCANNER_LOCAL_HOST'] as const;

/** Process groups of running yt-dlp children, ended with this process (terminal signals miss a group of its own). */
const runningGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function trackGroup(pid: number): void {
  runningGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => runningGroups.forEach(killGroup));
}

/**
 * One yt-dlp run (or one of the provider resolver's handler, which runs yt-dlp: `env` adds what it
 * is told, YT_DLP_PATH) in its own process group (it starts ffmpeg to merge or to fetch HLS: a stop must
 * reach both), stopped at the deadline, or, with `dir`, as soon as the files there exceed maxBytes.
 */
export function runYtDlp(
  binary: string,
  args: readonly string[],
  bounds: { timeoutMs: number; dir?: string; maxBytes?: number; env?: Readonly<Record<string, string>> },
): Promise<YtDlpRun> {
  return new Promise((resolve, reject) => {
    const home = bounds.dir ?? tmpdir();
    const inherited = Object.fromEntries(inheritedVariables.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
    const child = launch(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...inherited, ...bounds.env, HOME: home, TMPDIR: home, LANG: 'C.UTF-8' },
    });
    const { pid } = child;
    if (pid !== undefined) trackGroup(pid);
    const result: YtDlpRun = { exitCode: null, stdout: '', stderr: '', timedOut: false, overBytes: false };
    const stop = () => {
      if (pid !== undefined) killGroup(pid);
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      stop();
    }, bounds.timeoutMs);
    const watcher =
      bounds.dir === undefined
        ? undefined
        : setInterval(
            () =>
              void watchBytes(bounds.dir ?? '', bounds.maxBytes ?? Infinity, () => {
                result.overBytes = true;
                stop();
              }),
            500,
          );
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (result.stdout.length + chunk.length > MAX_STDOUT_CHARS) stop();
      else result.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (result.stderr.length < MAX_STDERR_CHARS) result.stderr += chunk.slice(0, MAX_STDERR_CHARS - result.stderr.length);
    });
    const finish = () => {
      clearTimeout(timer);
      clearInterval(watcher);
      if (pid !== undefined) runningGroups.delete(pid);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      finish();
      // Not the error itself: it carries the argv, and with it the URL.
      reject(
        error.code === 'ENOENT' || error.code === 'EACCES' ? ytDlpUnavailable() : new Error(`yt-dlp could not be started (${error.code ?? 'unknown error'})`),
      );
    });
    child.once('close', (exitCode) => {
      finish();
      resolve({ ...result, exitCode });
    });
  });
}

async function watchBytes(dir: string, maxBytes: number, over: () => void): Promise<void> {
  try {
    // A merge's output (source.temp.mp4) repeats its parts' bytes: only what was downloaded counts.
    const names = (await readdir(dir)).filter((name) => !name.includes('.temp.'));
    const sizes = await Promise.all(
      names.map((name) =>
        stat(join(dir, name)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    if (sizes.reduce((sum, size) => sum + size, 0) > maxBytes) over();
  } catch {
    // The directory is being cleaned up.
  }
}
