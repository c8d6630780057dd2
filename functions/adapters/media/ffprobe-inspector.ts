import { launch } from '../child-process.js';
import { assertTransportOk, assessTail, classifyLayout, decodedFrames, HEAD_PACKETS, undecodable, type ProbeRun } from '../../domain/uploads/media-probe.js';
import type { Inspection, MediaInspector } from '../../domain/uploads/ports.js';
import type { MediaKind } from '../../domain/uploads/model.js';

export type ProbeStage = 'layout' | 'head' | 'tail';

/** Runs ffprobe once; never throws for a non-zero exit (that is a verdict), only when it cannot start. */
export type FfprobeRunner = (stage: ProbeStage, args: readonly string[], timeoutMs: number) => Promise<ProbeRun>;

/** Demuxers of the SPEC content types; anything else (HLS playlists, images, ...) is refused unread. */
const DEMUXERS = 'mov,matroska,mp3,wav,aiff,aac,ogg,flac';
/** At most this many candidate streams are decoded before the media is called undecodable. */
const MAX_CANDIDATES = 4;

const common = [
  '-v',
  'error',
  '-hide_banner',
  // Only the signed URL itself may be opened: no files, no nested protocols, no playlists.
  '-protocol_whitelist',
  'http,https,tcp,tls',
  '-format_whitelist',
  DEMUXERS,
  // A stalled read errors after 10 s instead of eating the whole budget (microseconds).
  '-rw_timeout',
  '10000000',
];

/** The ffprobe command line of each stage (see domain/uploads/media-probe.ts for what each one decides). */
export const probeArgs = {
  layout: (url: string) => [...common, '-show_error', '-show_format', '-show_streams', '-of', 'json', url],
  head: (url: string, streamIndex: number) => [
    ...common,
    '-select_streams',
    String(streamIndex),
    '-read_intervals',
    `%+#${HEAD_PACKETS}`,
    '-count_frames',
    '-show_entries',
    'stream=index,nb_read_frames',
    '-of',
    'json',
    url,
  ],
  // "+1000000": read from the seek point to the end of the file (an open end reads nothing in this ffprobe).
  tail: (url: string, startSeconds: number) => [
    ...common,
    '-read_intervals',
    `${startSeconds.toFixed(3)}%+1000000`,
    '-show_entries',
    'packet=stream_index,pts_time,dts_time,duration_time',
    '-of',
    'json=compact=1',
    url,
  ],
};

class BudgetExceeded extends Error {}

/** ffprobe echoes its input in messages; a signed URL must never reach a log or an error (DESIGN §9). */
function redacted(run: ProbeRun, url: string): ProbeRun {
  const scrub = (text: string) =>
    text
      .split(url)
      .join('<signed-url>')
      .replace(/(X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"]+/gi, '$1<redacted>');
  return { ...run, stdout: scrub(run.stdout), stderr: scrub(run.stderr) };
}

/**
 * The MediaInspector over ffprobe: three bounded runs against a signed GET URL (HTTP range reads,
 * never a full download), all within `budgetMs`. Exceeding the budget fails the upload closed
 * (inspection_timeout); a probe that cannot reach the bytes throws (the upload stays pending).
 */
export function ffprobeInspector(runner: FfprobeRunner, budgetMs: number): MediaInspector {
  return {
    async inspect(url: string, mediaKind: MediaKind, limits: { maxDurationMs: number; prefixOnly?: boolean }): Promise<Inspection> {
      const deadline = Date.now() + budgetMs;
      const run = async (stage: ProbeStage, args: readonly string[]) => {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new BudgetExceeded();
        const result = redacted(await runner(stage, args, remaining), url);
        if (result.timedOut) throw new BudgetExceeded();
        assertTransportOk(stage, result);
        return result;
      };
      try {
        const layout = classifyLayout(mediaKind, await run('layout', probeArgs.layout(url)), limits.maxDurationMs);
        if (!layout.ok) return layout;

        let decoded = false;
        for (const index of layout.candidates.slice(0, MAX_CANDIDATES)) {
          if (decodedFrames(await run('head', probeArgs.head(url, index))) > 0) {
            decoded = true;
            break;
          }
        }
        if (!decoded) return undecodable(mediaKind);
        if (limits.prefixOnly) return { ok: true, durationMs: layout.durationMs, streams: layout.streams };

        const tail = assessTail(layout, await run('tail', probeArgs.tail(url, layout.tailStartSeconds)));
        if (!tail.ok) return tail;
        return { ok: true, durationMs: layout.durationMs, streams: layout.streams };
      } catch (error) {
        if (!(error instanceof BudgetExceeded)) throw error;
        return {
          ok: false,
          error: {
            code: 'inspection_timeout',
            message: `The media could not be verified within ${Math.round(budgetMs / 1000)} seconds.`,
          },
        };
      }
    },
  };
}

/** Output beyond this is not needed for any verdict; a run producing more is stopped as over budget. */
const MAX_STDOUT_CHARS = 32 * 1024 * 1024;
const MAX_STDERR_CHARS = 64 * 1024;

/**
 * Spawns ffprobe asynchronously. Never execFileSync: the local host serves the bytes from s3rver
 * in this same process, and a blocked event loop would never answer ffprobe's reads (STACK.md).
 */
/** `binary` is resolved at the first probe: on AWS only the routes with the ffmpeg layer probe. */
export function spawnFfprobe(binary: () => string): FfprobeRunner {
  return async (_stage, args, timeoutMs) => {
    const path = binary();
    return new Promise<ProbeRun>((resolve, reject) => {
      const child = launch(path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      const stop = () => {
        timedOut = true;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(stop, timeoutMs);
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stdout.length + chunk.length > MAX_STDOUT_CHARS) stop();
        else stdout += chunk;
      });
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.slice(0, MAX_STDERR_CHARS - stderr.length);
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        // Not the error itself: it carries the arguments, and with them the signed URL.
        reject(new Error(`ffprobe could not be started (${path}): ${error.message}`));
      });
      child.once('close', (exitCode) => {
        clearTimeout(timer);
        resolve({ exitCode, stdout, stderr, timedOut });
      });
    });
  };
}
