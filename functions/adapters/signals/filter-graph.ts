import type { Span } from '../../domain/analysis/signals.js';
import { PCM_SAMPLE_RATE } from './audio-features.js';
import { SCENE_SCORE_KEY } from './ffmpeg-log.js';
import { THUMB_HEIGHT, THUMB_WIDTH } from './video-frames.js';

/**
 * The single ffmpeg run that measures a window: one decode, one filter graph, four sinks.
 *
 *   [video] fps=10 → scale=160:-2 → split ─→ blackdetect → freezedetect → select(scene)
 *                                         │    → print scene score → null
 *                                         └→ scale=64:36 → raw yuv420p → pipe:4 (motion, colour)
 *   [audio] asplit ─→ ebur128 (its own 48 kHz resample) → null
 *                  └→ 8 kHz mono s16 → silencedetect → pipe:3 (PCM for speech/tone analysis)
 *
 * Why this shape:
 * - Decoding the picture is almost all of the cost, so everything after it is made cheap:
 *   frames are thinned to 10 fps before anything else (cut times are then good to 100 ms) and
 *   scaled to 160 px wide, where the detectors cost next to nothing.
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
 * - Motion and colour come from 64x36 thumbnails measured in this process (video-frames.ts):
 *   ffmpeg 4.1's signalstats, the filter that would give them, cost more than every other
 *   filter together (0.25 ms a frame even at 160 px). The split comes before `select`, whose
 *   scene score (4.1) needs packed RGB, so the thumbnails skip that conversion.
 * - Detectors log to stderr (parsed by ffmpeg-log.ts); PCM and thumbnails go to their own file
 *   descriptors, written in 32 KiB blocks (`-flush_packets 0`; otherwise every packet is a
 *   write and a wake-up of this process).
 * - `-noautorotate`: nothing measured depends on orientation, and rotating a phone video's
 *   frames would happen at full size, before the downscale.
 * - `-filter_complex_threads 1`: at 160 px a filter's work is smaller than waking slice
 *   threads for it, and the second core is better left to the decoder's frame threads.
 */
export const ANALYSIS_FPS = 10;
const ANALYSIS_WIDTH = 160;

export interface GraphInput {
  url: string;
  /** Window on the source, ms. */
  window: Span;
  /** Absolute stream indexes (ffprobe `index`) to analyse; null to skip that kind. */
  videoStream: number | null;
  audioStream: number | null;
}

export const detectorSettings = {
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

export function ffmpegArgs(input: GraphInput): string[] {
  const { url, window, videoStream, audioStream } = input;
  const chains: string[] = [];
  const outputs: string[] = [];
  if (videoStream !== null) {
    chains.push(videoChains(`0:${videoStream}`, 'detectors', 'thumbnails'));
    outputs.push('-map', '[detectors]', '-f', 'null', '-', '-map', '[thumbnails]', ...rawTo(VIDEO_FD, 'rawvideo'));
  }
  if (audioStream !== null) {
    chains.push(audioChains(`0:${audioStream}`, 'loudness', 'pcm'));
    outputs.push('-map', '[loudness]', '-f', 'null', '-', '-map', '[pcm]', ...rawTo(PCM_FD, 's16le'));
  }
  return [
    ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info', '-filter_complex_threads', '1'],
    ...networkOptions(url),
    ...['-noautorotate', '-skip_frame:v', 'noref', '-skip_loop_filter:v', 'all'],
    ...(window.startMs > 0 ? ['-ss', seconds(window.startMs)] : []),
    ...['-t', seconds(window.endMs - window.startMs), '-i', url],
    ...['-filter_complex', chains.join(';')],
    ...outputs,
  ];
}

/** ffprobe: the streams to analyse and their geometry. */
export function ffprobeArgs(url: string): string[] {
  return [
    ...['-v', 'error', '-of', 'json'],
    ...networkOptions(url),
    '-show_entries',
    'stream=index,codec_type,width,height,avg_frame_rate,r_frame_rate:stream_disposition=attached_pic:stream_side_data=rotation',
    url,
  ];
}

/** A stalled presigned-URL read fails after 30 s instead of hanging until the timeout. */
const networkOptions = (url: string) => (/^https?:\/\//i.test(url) ? ['-rw_timeout', '30000000'] : []);
