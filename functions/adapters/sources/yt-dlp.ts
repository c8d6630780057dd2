import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, extname, join } from 'node:path';
import { ApiError } from '../../domain/errors.js';
import type { SourceFacts } from '../../domain/sources/ports.js';
import type { DownloadedFile } from './temp-files.js';
import { unreadable } from './verify-video.js';

/**
 * Page URLs of recorded-video, social and meeting providers through yt-dlp (DESIGN §10; Debian
 * package `yt-dlp`). It runs as a child process with an argv (never a shell), no configuration
 * files, a minimal environment (none of our credentials), and bounds on time and bytes. Its
 * output is never passed on verbatim: its messages can carry the page URL and media URLs.
 *
 * Format choice, for preflight and acquisition alike: `bv*+ba/b` (yt-dlp's own default: the best
 * video with the best audio, or the best single file with both) sorted by `res:1080,ext:mp4:m4a`
 * (at most 1080p is plenty to analyse and render, and MP4/M4A parts merge into MP4 without
 * re-encoding), merged into MP4 with our ffmpeg. Preflight adds `b*` so an audio-only page
 * still answers and is refused for what it is.
 */
export interface YtDlpOptions {
  /** YT_DLP_PATH; absent: `yt-dlp` on `searchPath`. */
  binaryPath?: string | undefined;
  /** Directories searched for `yt-dlp` (default: PATH). */
  searchPath?: string | undefined;
  /** The ffmpeg yt-dlp merges video and audio with (resolved when a download starts). */
  ffmpegPath: () => string;
  /** Default 60 s. */
  infoTimeoutMs?: number | undefined;
  /** Default 3 h. */
  downloadTimeoutMs?: number | undefined;
}

export interface YtDlp {
  /** The page's facts from `--dump-single-json`, nothing downloaded. */
  info(url: URL): Promise<SourceFacts>;
  /** Downloads the video into `dir` (at most maxBytes) and returns the file. */
  download(url: URL, dir: string, maxBytes: number): Promise<DownloadedFile>;
}

const FORMAT = 'bv*+ba/b';
const FORMAT_SORT = 'res:1080,ext:mp4:m4a';
const common = ['--ignore-config', '--no-playlist', '--no-warnings', '--no-progress', '--no-cache-dir', '--socket-timeout', '30', '--retries', '3'];

export const ytDlpArgs = {
  info: (url: URL) => [...common, '--dump-single-json', '--skip-download', '-f', `${FORMAT}/b*`, '-S', FORMAT_SORT, '--', url.href],
  download: (url: URL, dir: string, maxBytes: number, ffmpeg: string) => [
    ...common, '--dump-single-json', '--no-simulate', '--no-mtime', '--match-filters', '!is_live',
    '-f', FORMAT, '-S', FORMAT_SORT, '--merge-output-format', 'mp4', '--ffmpeg-location', ffmpeg,
    '--max-filesize', String(maxBytes), '-o', join(dir, 'source.%(ext)s'), '--', url.href,
  ],
};

export function ytDlp(options: YtDlpOptions): YtDlp {
  const infoTimeoutMs = options.infoTimeoutMs ?? 60_000;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? 3 * 3_600_000;
  return {
    async info(url) {
      const run = await runYtDlp(await locateYtDlp(options), ytDlpArgs.info(url), { timeoutMs: infoTimeoutMs });
      if (run.timedOut) throw unreadable(`The provider did not describe the video within ${Math.round(infoTimeoutMs / 1000)} seconds.`);
      if (run.exitCode !== 0) throw unreadable(providerMessage(run.stderr));
      return factsOf(parseInfo(run.stdout));
    },

    async download(url, dir, maxBytes) {
      const binary = await locateYtDlp(options);
      const run = await runYtDlp(binary, ytDlpArgs.download(url, dir, maxBytes, options.ffmpegPath()), { timeoutMs: downloadTimeoutMs, dir, maxBytes });
      const tooLarge = () => new ApiError('source_too_large', `The source is larger than ${maxBytes} bytes.`, 'source_url');
      if (run.overBytes) throw tooLarge();
      if (run.timedOut) throw unreadable(`The provider's video did not download within ${Math.round(downloadTimeoutMs / 60_000)} minutes.`);
      if (run.exitCode !== 0) throw unreadable(providerMessage(run.stderr));
      let info: YtDlpInfo | undefined;
      try {
        info = parseInfo(run.stdout);
      } catch {
        // The file is what matters; the description only adds a title.
      }
      const file = (await readdir(dir)).find((name) => /^source\.[a-z0-9]+$/i.test(name));
      if (!file) {
        // yt-dlp skips, quietly and with exit 0, a download it knows to be larger than --max-filesize.
        if ((info && (sizeOf(info) ?? 0) > maxBytes) || /larger than max-filesize/i.test(run.stdout)) throw tooLarge();
        throw unreadable(`The provider gave no video file: it is a live stream, or larger than ${maxBytes} bytes.`);
      }
      const path = join(dir, file);
      const sizeBytes = (await stat(path)).size;
      if (sizeBytes > maxBytes) throw tooLarge();
      const title = info ? titleOf(info) : null;
      return { path, sizeBytes, contentType: contentTypes[extname(file).slice(1).toLowerCase()] ?? 'application/octet-stream', title };
    },
  };
}

const contentTypes: Record<string, string> = { mp4: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska', mov: 'video/quicktime' };

const unavailable = () =>
  new ApiError('provider_unavailable', 'Resolving provider pages needs yt-dlp, which this deployment lacks: install the Debian package yt-dlp or set YT_DLP_PATH.');

/** The configured binary, or `yt-dlp` on the search path; provider_unavailable when there is none. */
export async function locateYtDlp(options: Pick<YtDlpOptions, 'binaryPath' | 'searchPath'>): Promise<string> {
  const executable = (path: string) => access(path, constants.X_OK).then(() => true, () => false);
  if (options.binaryPath) {
    if (await executable(options.binaryPath)) return options.binaryPath;
    throw unavailable();
  }
  for (const dir of (options.searchPath ?? process.env.PATH ?? '').split(delimiter)) {
    if (dir && (await executable(join(dir, 'yt-dlp')))) return join(dir, 'yt-dlp');
  }
  throw unavailable();
}

// ---- the info dict (yt-dlp README "OUTPUT TEMPLATE", extractor/common.py) ----------------------

interface YtDlpFormat {
  vcodec?: string | null;
  filesize?: number | null;
  filesize_approx?: number | null;
}

interface YtDlpInfo extends YtDlpFormat {
  _type?: string;
  title?: string | null;
  /** Seconds. */
  duration?: number | null;
  is_live?: boolean | null;
  live_status?: string | null;
  formats?: YtDlpFormat[] | null;
  /** The parts the format selection chose (video and audio) when they are merged. */
  requested_formats?: YtDlpFormat[] | null;
}

function parseInfo(stdout: string): YtDlpInfo {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const info: unknown = JSON.parse(line);
    if (info && typeof info === 'object' && !Array.isArray(info)) return info;
  } catch {
    // Reported below without the output, which may carry media URLs.
  }
  throw unreadable('The provider answered with something other than a video description.');
}

export function factsOf(info: YtDlpInfo): SourceFacts {
  if (info._type === 'playlist' || info._type === 'multi_video') throw unreadable('The link names a playlist; give the link of one video.');
  if (info.is_live === true || ['is_live', 'is_upcoming', 'post_live'].includes(info.live_status ?? '')) {
    throw unreadable('Live streams cannot be analysed; give the link of a recorded video.');
  }
  // As yt-dlp's own `bv*` does: a format has video unless its vcodec is "none".
  const formats = info.formats?.length ? info.formats : [info];
  if (!formats.some((format) => format.vcodec !== 'none')) {
    throw unreadable('The source has no video stream; one-off analyses take video (audio-only sources are refused).');
  }
  const seconds = info.duration;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) throw unreadable('The provider does not say how long this video is.');
  return { mediaKind: 'video', durationMs: Math.round(seconds * 1000), sizeBytes: sizeOf(info), title: titleOf(info) };
}

const bytesOf = (format: YtDlpFormat): number | undefined => {
  const size = format.filesize ?? format.filesize_approx;
  return typeof size === 'number' && Number.isFinite(size) && size > 0 ? Math.round(size) : undefined;
};

/** The chosen parts' sizes summed when all are known, else the top-level estimate, else unknown. */
function sizeOf(info: YtDlpInfo): number | null {
  const parts = (info.requested_formats ?? []).map(bytesOf);
  if (parts.length > 0 && parts.every((size) => size !== undefined)) return parts.reduce((sum: number, size) => sum + (size ?? 0), 0);
  return bytesOf(info) ?? null;
}

const titleOf = (info: YtDlpInfo): string | null => (typeof info.title === 'string' && info.title.trim() ? info.title.trim().slice(0, 300) : null);

/** yt-dlp's last ERROR line without the `[extractor] id:` prefix (the id may be a share token) or any URL. */
function providerMessage(stderr: string): string {
  const line = stderr.split('\n').filter((text) => text.startsWith('ERROR:')).at(-1) ?? '';
  const reason = line
    .replace(/^ERROR:\s*/, '')
    .replace(/^\[[^\]]+\]\s+\S+:\s+/, '')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .trim()
    .slice(0, 300);
  return reason ? `The provider could not give this video: ${reason}` : 'The provider could not give this video.';
}

// ---- the child process ---------------------------------------------------------------------

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
 * One yt-dlp run in its own process group (it starts ffmpeg to merge: a stop must reach both),
 * stopped at the deadline, or, with `dir`, as soon as the files there exceed maxBytes.
 */
function runYtDlp(binary: string, args: readonly string[], bounds: { timeoutMs: number; dir?: string; maxBytes?: number }): Promise<YtDlpRun> {
  return new Promise((resolve, reject) => {
    const home = bounds.dir ?? tmpdir();
    const child = spawn(binary, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8' },
    });
    const result: YtDlpRun = { exitCode: null, stdout: '', stderr: '', timedOut: false, overBytes: false };
    const stop = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      stop();
    }, bounds.timeoutMs);
    const watcher = bounds.dir === undefined ? undefined : setInterval(() => void watchBytes(bounds.dir ?? '', bounds.maxBytes ?? Infinity, () => {
      result.overBytes = true;
      stop();
    }), 500);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (result.stdout.length + chunk.length > MAX_STDOUT_CHARS) stop();
      else result.stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (result.stderr.length < MAX_STDERR_CHARS) result.stderr += chunk.slice(0, MAX_STDERR_CHARS - result.stderr.length);
    });
    const finish = () => {
      clearTimeout(timer);
      clearInterval(watcher);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      finish();
      // Not the error itself: it carries the argv, and with it the URL.
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? unavailable() : new Error(`yt-dlp could not be started (${error.code ?? 'unknown error'})`));
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
    const sizes = await Promise.all(names.map((name) => stat(join(dir, name)).then((s) => s.size, () => 0)));
    if (sizes.reduce((sum, size) => sum + size, 0) > maxBytes) over();
  } catch {
    // The directory is being cleaned up.
  }
}
