import type { Span } from '../../domain/analysis/signals.js';
import { PCM_SAMPLE_RATE } from './audio-features.js';

/**
 * The single ffmpeg run that measures a window: one decode, one filter graph, four sinks.
 *
 *   [video] fps=10 → scale=160:-2 → signalstats → blackdetect → freezedetect → select(scene)
 *           → print scene score, YDIF → split ─→ null
 *                                            └→ fps=1 → print YAVG, UAVG, VAVG → null
 *   [audio] asplit ─→ ebur128 (its own 48 kHz resample) → null
 *                  └→ 8 kHz mono s16 → silencedetect → pipe:3 (PCM for speech/tone analysis)
 *
 * Why this shape:
 * - Decoding the picture is almost all of the cost, so everything after it is made cheap:
 *   frames are thinned to 10 fps before anything else (cut times are then good to 100 ms) and
 *   scaled to 160 px wide, where every video filter costs next to nothing.
 * - Two decoder options cut the decode itself, video only (`:v`):
 *   `-skip_frame noref` does not decode frames no other frame references (most B-frames):
 *   nothing else depends on them, and with frames thinned to 10 fps anyway a cut is still found
 *   within a frame or two (x264 and most encoders start a new shot with a reference frame). On
 *   a B-frame H.264 encode this skips about 45% of the frames and 40% of the decode time; on a
 *   stream without B-frames it changes nothing.
 *   `-skip_loop_filter all` skips H.264/HEVC deblocking: it changes pixels by a few levels,
 *   invisible after a 160 px downscale.
 * - The YUV filters come before `select`, whose scene score (ffmpeg 4.1) needs packed RGB, so
 *   there is one colour conversion, at 160 px.
 * - Detectors log to stderr (parsed by ffmpeg-log.ts); the PCM goes to fd 3 so it never mixes
 *   with the log. The log is most of what this process parses, so the colour (a mean over the
 *   window) is printed for one frame a second, not ten: half the log of printing every frame.
 * - `-filter_complex_threads 1`: at 160 px a filter's work is smaller than waking slice
 *   threads for it, and the second core is better left to the decoder's frame threads.
 */
export const ANALYSIS_FPS = 10;
export const ANALYSIS_WIDTH = 160;

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

/** Metadata keys printed for every analysed frame. */
export const FRAME_KEYS = {
  scene: 'lavfi.scene_score',
  ydif: 'lavfi.signalstats.YDIF',
} as const;

/** Metadata keys printed for one analysed frame a second. */
export const COLOUR_KEYS = {
  yavg: 'lavfi.signalstats.YAVG',
  uavg: 'lavfi.signalstats.UAVG',
  vavg: 'lavfi.signalstats.VAVG',
} as const;

const print = (keys: Record<string, string>) => Object.values(keys).map((key) => `metadata=mode=print:key=${key}`);

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export function videoChains(input: string, video: string, colour: string): string {
  const d = detectorSettings;
  const analysed = [
    `[${input}]fps=${ANALYSIS_FPS}`,
    `scale=${ANALYSIS_WIDTH}:-2:flags=fast_bilinear`,
    'format=yuv420p',
    'signalstats',
    `blackdetect=d=${d.blackMinSeconds}:pix_th=${d.blackPixelThreshold}`,
    `freezedetect=n=${d.freezeNoiseDb}dB:d=${d.freezeMinSeconds}`,
    // gte(scene,0) keeps every frame: the score itself is what is wanted, not a selection.
    "select='gte(scene\\,0)'",
    ...print(FRAME_KEYS),
    `split[${video}][sampled]`,
  ];
  return `${analysed.join(',')};[sampled]fps=1,${print(COLOUR_KEYS).join(',')}[${colour}]`;
}

export function audioChains(input: string, loudness: string, pcm: string): string {
  const d = detectorSettings;
  return [
    `[${input}]asplit[ebur][low]`,
    `[ebur]ebur128[${loudness}]`,
    `[low]aformat=sample_fmts=s16:channel_layouts=mono:sample_rates=${PCM_SAMPLE_RATE},silencedetect=n=${d.silenceNoiseDb}dB:d=${d.silenceMinSeconds}[${pcm}]`,
  ].join(';');
}

export function ffmpegArgs(input: GraphInput): string[] {
  const { url, window, videoStream, audioStream } = input;
  const chains: string[] = [];
  const outputs: string[] = [];
  if (videoStream !== null) {
    chains.push(videoChains(`0:${videoStream}`, 'video', 'colour'));
    outputs.push('-map', '[video]', '-f', 'null', '-', '-map', '[colour]', '-f', 'null', '-');
  }
  if (audioStream !== null) {
    chains.push(audioChains(`0:${audioStream}`, 'loudness', 'pcm'));
    // Without -flush_packets 0 every ~20 ms packet is its own write: thousands of wake-ups here.
    outputs.push('-map', '[loudness]', '-f', 'null', '-', '-map', '[pcm]', '-flush_packets', '0', '-f', 's16le', 'pipe:3');
  }
  return [
    ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info', '-filter_complex_threads', '1'],
    ...networkOptions(url),
    ...['-skip_frame:v', 'noref', '-skip_loop_filter:v', 'all'],
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
    ...['-show_entries', 'stream=index,codec_type,width,height,avg_frame_rate,r_frame_rate:stream_disposition=attached_pic'],
    url,
  ];
}

/** A stalled presigned-URL read fails after 30 s instead of hanging until the timeout. */
const networkOptions = (url: string) => (/^https?:\/\//i.test(url) ? ['-rw_timeout', '30000000'] : []);
