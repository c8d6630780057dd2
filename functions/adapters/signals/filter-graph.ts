import type { Span } from '../../domain/engine/signals.js';
import { PCM_SAMPLE_RATE } from './audio-features.js';
import { SCENE_SCORE_KEY } from './ffmpeg-log.js';
import { THUMB_HEIGHT, THUMB_WIDTH } from './video-frames.js';

/**
 * The ffmpeg runs that measure a window, all started together (the extractor waits for all):
 * the picture decoded once, split over time into parts on long windows (one run per core, each
 * on one decoder thread), and the sound decoded once in a run of its own. Four kinds of sink.
 *
 *   picture run(s) (-an), each over [fromS, toS) of the window:
 *   [video] fps=10 → scale=160:-2 → split ─→ blackdetect → freezedetect → select(scene)
 *                                         │    → print scene score → null
 *                                         └→ scale=64:36 → raw yuv420p → pipe:4 (motion, colour)
 *   sound run (-vn):
 *   [audio] asplit ─→ ebur128 → null
 *                  └→ 8 kHz mono s16 → silencedetect → pipe:3 (PCM for speech/tone analysis)
 *
 * Where the time goes (issue 16; CPU seconds for a 10-minute 720p H.264 + AAC file, against a
 * bare `ffmpeg -i file -f null -` of 36-40 s for x264 veryfast and 21-25 s for ultrafast; see
 * docs/local-analyzer.md): decoding the picture is nearly all of it (veryfast 14.7 s with the
 * options below on one thread, 16.5-18 s on frame threads; ultrafast 18-21 s: all of its frames
 * must be decoded); the video filters about 0.7 s (select's scene score with its RGB conversion
 * about 0.1 s of that); the sound run 1.1-1.5 s (AAC decode 0.45, ebur128 0.55, the 8 kHz
 * resample 0.2); the extractor's process about 1 s (PCM spectra 0.4-0.7, thumbnails 0.2-0.3,
 * log parsing 0.04).
 *
 * Why this shape:
 * - Decoding the picture is almost all of the cost, so everything after it is made cheap:
 *   frames are thinned to 10 fps before anything else (cut times are then good to 100 ms) and
 *   scaled to 160 px wide (fast_bilinear: 2 taps, it reads a sixteenth of the frame), where the
 *   detectors cost next to nothing.
 * - Two decoder options cut the decode itself, video only (`:v`):
 *   `-skip_frame noref` does not decode frames no other frame references (most B-frames):
 *   nothing else depends on them, and with frames thinned to 10 fps anyway a cut is still found
 *   within a frame or two (x264 and most encoders start a new shot with a reference frame; the
 *   ground-truth video is encoded with B-frames to hold this to account).
 *   `-skip_loop_filter all` skips H.264/HEVC deblocking: it changes pixels by a few levels,
 *   invisible after a 160 px downscale.
 *   On a 720p x264 `veryfast` encode (3 B-frames, deblocked) the two take decode CPU from 7.1 s
 *   to 3.2 s (noref 3.65 s alone); on a stream without B-frames or deblocking (x264
 *   `ultrafast`) they change nothing. `-skip_frame bidir` (all B-frames, referenced ones too)
 *   was measured and rejected (issue 16): 22% less decode CPU than noref on that 720p encode, but
 *   the analysed frames are then up to 160 ms apart, so pans jumped past the scene threshold
 *   (6 false cuts in the transitions fixture's pans) and cuts moved by 100 ms; and a P-frame
 *   that references a skipped B-frame would decode as garbage.
 * - The picture decode split over time (videoSplit, videoPartBounds), one decoder thread per
 *   part: what `-skip_frame noref` leaves of a B-frame stream is a chain of reference frames,
 *   each needing the one before, which frame threads spread over cores only partly (1.0-1.4
 *   cores on 2) and at 12-15% more CPU (720p veryfast: 16.5-18 s instead of 14.7 s); parts
 *   decoded side by side use every core at the single-thread cost. Each part starts 1 s early
 *   (its first kept frame gets its scene score against the frame before it) and runs 3 s past
 *   its end (a black or frozen span across the boundary is seen whole by one part or continued
 *   by the next), so a part costs up to 4 s of decode more, plus the seek from the keyframe
 *   before its start (up to a GOP); parts are at least 60 s. The joined result is the single
 *   run's, value for value (ffmpeg-signal-extractor.test.ts, and the 10-minute bench files).
 *   A window that stays one part decodes on one thread if it has B-frames (ffprobe
 *   `has_b_frames`), else on frame threads, as the bare decode does.
 * - The sound in its own process (`-vn`): it runs beside the picture decode, so its 1-1.5 s
 *   leave the wall time, for about 0.2 s of CPU to demux the file again (every run reads the
 *   file: for a presigned URL, the picture parts and the sound each GET their own range).
 * - Motion and colour come from 64x36 thumbnails measured in this process (video-frames.ts):
 *   ffmpeg 4.1's signalstats, the filter that would give them, cost more than every other
 *   filter together (0.25 ms a frame even at 160 px). The split comes before `select`, whose
 *   scene score (4.1) needs packed RGB, so the thumbnails skip that conversion. Computing the
 *   scene score here instead would save about 0.1 s per 10 minutes: not worth a second,
 *   differently tuned, cut measure.
 * - Detectors log to stderr (parsed by ffmpeg-log.ts); PCM and thumbnails go to their own file
 *   descriptors, written in 32 KiB blocks (`-flush_packets 0`; otherwise every packet is a
 *   write and a wake-up of this process).
 * - `-noautorotate`: nothing measured depends on orientation, and rotating a phone video's
 *   frames would happen at full size, before the downscale.
 * - `-filter_complex_threads 1`: at 160 px a filter's work is smaller than waking slice
 *   threads for it, and the second core is better left to the decode.
 */
export const ANALYSIS_FPS = 10;
const ANALYSIS_WIDTH = 160;

interface GraphInput {
  url: string;
  /** Window on the source, ms. */
  window: Span;
  /** Absolute stream indexes (ffprobe `index`) to analyse; null to skip that kind. */
  videoStream: number | null;
  audioStream: number | null;
  /** The video stream has B-frames (see probe.ts): its decode runs on one thread. */
  bFrames?: boolean;
  /** Picture runs to split the window into (each on one decoder thread); default 1. See videoParts. */
  videoParts?: number;
}

/**
 * Splitting the picture decode over time: each part is its own ffmpeg run, one decoder thread
 * each. A part starts `preRollS` before its own frames (so its first kept frame has a scene
 * score against the frame before it) and runs `overlapS` past them (so black and frozen spans
 * that cross the boundary are seen whole by one of the two runs); parts are at least
 * `minPartS` long, whole seconds.
 */
export const videoSplit = { preRollS: 1, overlapS: 3, minPartS: 60 } as const;

/** A picture run over [fromS, toS) of the window (seconds from its start), whose frames in [keepFromS, keepToS) are used. */
export interface VideoPart {
  args: string[];
  fromS: number;
  toS: number;
  keepFromS: number;
  keepToS: number;
}

export function videoPartBounds(durationS: number, parts: number, minPartS: number = videoSplit.minPartS): Omit<VideoPart, 'args'>[] {
  const count = Math.max(1, Math.min(Math.floor(parts), Math.floor(durationS / minPartS)));
  if (count === 1) return [{ fromS: 0, toS: durationS, keepFromS: 0, keepToS: durationS }];
  const step = Math.floor(durationS / count);
  return Array.from({ length: count }, (_, i) => {
    const keepFromS = i * step;
    const keepToS = i === count - 1 ? durationS : (i + 1) * step;
    return {
      fromS: Math.max(0, keepFromS - videoSplit.preRollS),
      toS: Math.min(durationS, keepToS + videoSplit.overlapS),
      keepFromS,
      keepToS,
    };
  });
}

const detectorSettings = {
  blackMinSeconds: 0.5,
  /** blackdetect: a pixel is black under 10% luma; 98% such pixels make a black frame (default). */
  blackPixelThreshold: 0.1,
  freezeNoiseDb: -60,
  freezeMinSeconds: 1,
  silenceNoiseDb: -50,
  silenceMinSeconds: 0.5,
} as const;

/** File descriptors of the raw outputs (the child's stdio slots). */
export const PCM_FD = 3;
export const VIDEO_FD = 4;

const rawTo = (fd: number, format: string) => ['-flush_packets', '0', '-f', format, `pipe:${fd}`];

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function videoChains(input: string, detectors: string, thumbnails: string): string {
  const d = detectorSettings;
  return [
    `[${input}]fps=${ANALYSIS_FPS},scale=${ANALYSIS_WIDTH}:-2:flags=fast_bilinear,format=yuv420p,split[analysed][thumbs]`,
    [
      `[analysed]blackdetect=d=${d.blackMinSeconds}:pix_th=${d.blackPixelThreshold}`,
      `freezedetect=n=${d.freezeNoiseDb}dB:d=${d.freezeMinSeconds}`,
      // gte(scene,0) keeps every frame: the score itself is what is wanted, not a selection.
      "select='gte(scene\\,0)'",
      `metadata=mode=print:key=${SCENE_SCORE_KEY}[${detectors}]`,
    ].join(','),
    `[thumbs]scale=${THUMB_WIDTH}:${THUMB_HEIGHT}:flags=area,format=yuv420p[${thumbnails}]`,
  ].join(';');
}

function audioChains(input: string, loudness: string, pcm: string): string {
  const d = detectorSettings;
  return [
    `[${input}]asplit[ebur][low]`,
    `[ebur]ebur128[${loudness}]`,
    `[low]aformat=sample_fmts=s16:channel_layouts=mono:sample_rates=${PCM_SAMPLE_RATE},` +
      `silencedetect=n=${d.silenceNoiseDb}dB:d=${d.silenceMinSeconds}[${pcm}]`,
  ].join(';');
}

/** The ffmpeg runs that measure a window: picture and sound each in its own process, run side by side. */
interface FfmpegRuns {
  /** Empty without a video stream. */
  video: VideoPart[];
  audio: string[] | null;
}

export function ffmpegRuns(input: GraphInput, minPartS: number = videoSplit.minPartS): FfmpegRuns {
  const { url, window, videoStream, audioStream } = input;
  const inputArgs = (decoderOptions: readonly string[], startMs: number, endMs: number) => [
    ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info', '-filter_complex_threads', '1'],
    ...networkOptions(url),
    ...decoderOptions,
    ...(startMs > 0 ? ['-ss', seconds(startMs)] : []),
    ...['-t', seconds(endMs - startMs), '-i', url],
  ];
  const durationS = (window.endMs - window.startMs) / 1000;
  const parts = videoStream === null ? [] : videoPartBounds(durationS, input.videoParts ?? 1, minPartS);
  const threads = input.bFrames || parts.length > 1 ? ['-threads:v', '1'] : [];
  return {
    video: parts.map((part) => ({
      ...part,
      args: [
        ...inputArgs(
          ['-noautorotate', '-an', '-sn', '-dn', ...threads, '-skip_frame:v', 'noref', '-skip_loop_filter:v', 'all'],
          window.startMs + part.fromS * 1000,
          window.startMs + part.toS * 1000,
        ),
        ...['-filter_complex', videoChains(`0:${videoStream}`, 'detectors', 'thumbnails')],
        // Frames as the graph made them: rawvideo would otherwise be made constant-rate from 0, and
        // a window that starts at 0.1 s (after -ss) got a copy of its first thumbnail in front.
        ...['-vsync', 'passthrough'],
        ...['-map', '[detectors]', '-f', 'null', '-', '-map', '[thumbnails]', ...rawTo(VIDEO_FD, 'rawvideo')],
      ],
    })),
    audio:
      audioStream === null
        ? null
        : [
            ...inputArgs(['-vn', '-sn', '-dn'], window.startMs, window.endMs),
            ...['-filter_complex', audioChains(`0:${audioStream}`, 'loudness', 'pcm')],
            ...['-map', '[loudness]', '-f', 'null', '-', '-map', '[pcm]', ...rawTo(PCM_FD, 's16le')],
          ],
  };
}

/** ffprobe: the streams to analyse and their geometry. */
export function ffprobeArgs(url: string): string[] {
  return [
    ...['-v', 'error', '-of', 'json'],
    ...networkOptions(url),
    '-show_entries',
    'stream=index,codec_type,width,height,avg_frame_rate,r_frame_rate,has_b_frames:stream_disposition=attached_pic:stream_side_data=rotation',
    url,
  ];
}

/** A stalled presigned-URL read fails after 30 s instead of hanging until the timeout. */
const networkOptions = (url: string) => (/^https?:\/\//i.test(url) ? ['-rw_timeout', '30000000'] : []);
