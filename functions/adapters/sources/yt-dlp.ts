import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { delimiter, extname, join } from 'node:path';
import { ApiError } from '../../domain/errors.js';
import shared from '../../provider-resolver/yt-dlp-options.json' with { type: 'json' };
import type { DownloadedFile } from './temp-files.js';
import { parseInfo, providerMessage, sizeOf, titleOf, type YtDlpInfo } from './yt-dlp-info.js';
import { runYtDlp, ytDlpUnavailable } from './yt-dlp-process.js';
import { unreadable } from './verify-video.js';

/**
 * Downloads of recorded-video, social and meeting provider pages through yt-dlp (DESIGN §10;
 * Debian package `yt-dlp`, which the container image installs). A page's facts, for preflights,
 * come from the provider-resolver function instead (functions/provider-resolver), which runs
 * yt-dlp with the same options: routes carry no yt-dlp. It runs as a child process with an argv
 * (never a shell), no configuration files, a minimal environment (none of our credentials), and bounds on time and bytes. Its
 * output is never passed on verbatim: its messages can carry the page URL and media URLs.
 * yt-dlp connects by itself, not through the outbound client: only built-in provider hosts reach
 * it, and only the provider-specific extractors may run.
 *
 * Options shared with the resolver (yt-dlp-options.json): never the generic extractor (it would
 * fetch whatever a provider-host URL points it at, youtube.com/redirect?q=http://169.254.169.254/...,
 * outside the outbound client's checks); format `bv*+ba/b` (yt-dlp's own default: the best video
 * with the best audio, or the best single file with both) sorted by `res:1080,ext:mp4:m4a` (at
 * most 1080p is plenty to analyse and render, and MP4/M4A parts merge into MP4 without
 * re-encoding), merged into MP4 with our ffmpeg. The resolver adds `b*` so an audio-only page
 * still answers and is refused for what it is.
 */
interface YtDlpOptions {
  /** YT_DLP_PATH; absent: `yt-dlp` on `searchPath`. */
  binaryPath?: string | undefined;
  /** Directories searched for `yt-dlp` (default: PATH). */
  searchPath?: string | undefined;
  /** The ffmpeg yt-dlp merges video and audio with (resolved when a download starts). */
  ffmpegPath: () => string;
  /** Default 3 h. */
  downloadTimeoutMs?: number | undefined;
}

export interface YtDlp {
  /** Downloads the video into `dir` (at most maxBytes) and returns the file. */
  download(url: URL, dir: string, maxBytes: number): Promise<DownloadedFile>;
}

export const ytDlpDownloadArgs = (url: URL, dir: string, maxBytes: number, ffmpeg: string): string[] => [
  ...shared.common,
  '--dump-single-json',
  '--no-simulate',
  '--no-mtime',
  '--match-filters',
  '!is_live',
  '-f',
  shared.format,
  '-S',
  shared.formatSort,
  '--merge-output-format',
  'mp4',
  '--ffmpeg-location',
  ffmpeg,
  '--max-filesize',
  String(maxBytes),
  '-o',
  join(dir, 'source.%(ext)s'),
  '--',
  url.href,
];

export function ytDlp(settings: YtDlpOptions): YtDlp {
  const downloadTimeoutMs = settings.downloadTimeoutMs ?? 3 * 3_600_000;
  return {
    async download(url, dir, maxBytes) {
      const binary = await locateYtDlp(settings);
      const run = await runYtDlp(binary, ytDlpDownloadArgs(url, dir, maxBytes, settings.ffmpegPath()), { timeoutMs: downloadTimeoutMs, dir, maxBytes });
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

/** The configured binary, or `yt-dlp` on the search path; provider_unavailable when there is none. */
export async function locateYtDlp(options: Pick<YtDlpOptions, 'binaryPath' | 'searchPath'>): Promise<string> {
  const executable = (path: string) =>
    access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (options.binaryPath) {
    if (await executable(options.binaryPath)) return options.binaryPath;
    throw ytDlpUnavailable();
  }
  for (const dir of (options.searchPath ?? process.env.PATH ?? '').split(delimiter)) {
    if (dir && (await executable(join(dir, 'yt-dlp')))) return join(dir, 'yt-dlp');
  }
  throw ytDlpUnavailable();
}
