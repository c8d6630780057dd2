/**
 * Media with known ground truth, generated with the project's ffmpeg, for tests of the signal
 * stage and of the stages built on it. Each file comes with what is in it (times in ms from the
 * start of the file), so tests assert against data rather than against numbers copied from a
 * run. Files are cached in the OS temp dir under a hash of how they are made, so test workers
 * and later runs share them (generated once, written to a temporary name and renamed, so
 * concurrent workers never read a half-written file) and a changed recipe makes a new file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Span } from '../../functions/domain/analysis/signals.js';
import { resolveFfmpegPath } from '../../functions/adapters/ffmpeg-binaries.js';
import { runTool } from '../../functions/adapters/signals/ffmpeg-process.js';

export interface GroundTruthMedia {
  path: string;
  mediaKind: 'video' | 'audio';
  durationMs: number;
  video: {
    width: number;
    height: number;
    frameRate: number;
    /** Hard cuts. Entering and leaving a black span are cuts too. */
    cutsMs: number[];
    black: Span[];
    /** Picture unchanged (black spans excluded: the extractor reports them as black only). */
    frozen: Span[];
    /** Expected mean colour, when the picture is one colour. */
    dominantColor: string | null;
  } | null;
  audio: {
    /** Short spans far louder than their surroundings. */
    loudBursts: Span[];
    /** Digital silence. */
    silence: Span[];
    /** Synthetic speech-like sound (see speechExpression). */
    speech: Span[];
    /** Steady tones (the bursts are tones too). */
    tone: Span[];
  } | null;
}

export const ffmpegPath = (): string => resolveFfmpegPath(process.env.FFMPEG_PATH);

const cache = new Map<string, Promise<string>>();

export async function ffmpeg(args: string[], timeoutMs = 120_000): Promise<void> {
  const result = await runTool(ffmpegPath(), ['-hide_banner', '-nostdin', '-nostats', '-y', ...args], {
    timeoutMs,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  if (result.exitCode !== 0) throw new Error(`ffmpeg failed (${result.exitCode}): ${result.stderr.slice(-2000)}`);
}

/**
 * `name` made by ffmpeg with `args(outputPath)`, once per recipe: the file name carries a hash
 * of the arguments (and the ffmpeg binary), so an edited recipe never reuses a stale file.
 */
function generated(name: string, args: (output: string) => string[], dir = join(tmpdir(), 'mss-ground-truth')): Promise<string> {
  const [stem, ext] = name.split('.');
  const key = createHash('sha256')
    .update(JSON.stringify([ffmpegPath(), args('<output>')]))
    .digest('hex')
    .slice(0, 12);
  const path = join(dir, `${stem}-${key}.${ext}`);
  let file = cache.get(path);
  if (!file) {
    file = (async () => {
      if (await exists(path)) return path;
      mkdirSync(dir, { recursive: true });
      const partial = join(dir, `${stem}-${key}.${process.pid}-${Date.now()}.partial.${ext}`);
      await ffmpeg(args(partial), 600_000);
      await rename(partial, path);
      return path;
    })();
    cache.set(path, file);
  }
  return file;
}

const span = (startMs: number, endMs: number): Span => ({ startMs, endMs });

/**
 * Speech-like sound at 16 kHz: a sawtooth "voice" (130 Hz, gliding +-20 Hz) plus a little noise,
 * gated by a syllable envelope at 3.3-4.7 Hz, band-limited to 300-3400 Hz afterwards. Not
 * speech, but it has the two properties the heuristic measures.
 */
const speechExpression =
  'pow(max(0,sin(2*PI*4*t+2*sin(2*PI*0.37*t))),2)*(0.5*(2*mod(130*t-6.366*cos(PI*t),1)-1)+0.15*(2*random(0)-1))';

/**
 * 30 s, 320x180, 25 fps, H.264 with B-frames (x264 veryfast: what the extractor's frame
 * skipping must cope with) + AAC:
 * - video: a scrolling test pattern (0-10 s); a blue field with a moving box (10-20 s), black
 *   12-14 s; a hue-shifted second test pattern (20-30 s) whose picture stops 22-24 s.
 * - audio: a quiet 440 Hz tone (-33 dBFS) throughout, a loud 1 kHz burst (-3 dBFS) at 15-16 s,
 *   digital silence 25-28 s.
 */
export async function groundTruthVideo(): Promise<GroundTruthMedia> {
  const audio = 'if(between(t,25,28),0,if(between(t,15,16),0.7*sin(2*PI*1000*t),0.03*sin(2*PI*440*t)))';
  const path = await generated('ground-truth-video.mp4', (output) => [
    ...['-f', 'lavfi', '-i', 'testsrc=s=320x180:r=25:d=10'],
    ...['-f', 'lavfi', '-i', 'color=c=0x2050c0:s=320x180:r=25:d=10'],
    ...['-f', 'lavfi', '-i', 'testsrc=s=40x40:r=25:d=10'],
    // The fps filter fills the frames dropped from 2-4 s with the frame at 2 s: a frozen picture.
    ...['-f', 'lavfi', '-i', "testsrc2=s=320x180:r=25:d=10,select='not(between(t,2.02,3.98))',fps=25,hue=h=180"],
    ...['-f', 'lavfi', '-i', `aevalsrc='${audio}':s=48000:d=30`],
    '-filter_complex',
    "[1][2]overlay=x='mod(t*100,280)':y=70,drawbox=c=black:t=fill:enable='between(t,2,3.99)'[s2];[0][s2][3]concat=n=3[v]",
    ...['-map', '[v]', '-map', '4', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-t', '30', output],
  ]);
  return {
    path,
    mediaKind: 'video',
    durationMs: 30_000,
    video: {
      width: 320,
      height: 180,
      frameRate: 25,
      cutsMs: [10_000, 12_000, 14_000, 20_000],
      black: [span(12_000, 14_000)],
      frozen: [span(22_000, 24_000)],
      dominantColor: null,
    },
    audio: {
      loudBursts: [span(15_000, 16_000)],
      silence: [span(25_000, 28_000)],
      speech: [],
      tone: [span(0, 25_000), span(28_000, 30_000)],
    },
  };
}

/**
 * 24 s, mono AAC in .m4a: a 440 Hz tone (-20 dBFS) 0-6 s, digital silence 6-9 s, the tone
 * 9-10 s, a loud 1 kHz burst (-2 dBFS) 10-11 s, the tone 11-14 s, speech-like sound 14-22 s, the
 * tone 22-24 s.
 */
export async function groundTruthAudio(): Promise<GroundTruthMedia> {
  const tone = '0.1*sin(2*PI*440*t)';
  const expression = `if(between(t,6,9),0,if(between(t,10,11),0.8*sin(2*PI*1000*t),if(between(t,14,22),${speechExpression},${tone})))`;
  const path = await generated('ground-truth-audio.m4a', (output) => [
    ...['-f', 'lavfi', '-i', `aevalsrc='${expression}':s=16000:d=24`],
    ...['-af', 'highpass=f=300,lowpass=f=3400', '-c:a', 'aac', '-b:a', '64k', output],
  ]);
  return {
    path,
    mediaKind: 'audio',
    durationMs: 24_000,
    video: null,
    audio: {
      loudBursts: [span(10_000, 11_000)],
      silence: [span(6_000, 9_000)],
      speech: [span(14_000, 22_000)],
      tone: [span(0, 6_000), span(9_000, 14_000), span(22_000, 24_000)],
    },
  };
}

/** 3 s of one colour (#c03020), no audio: no cuts, no black, frozen throughout. */
export async function solidColorVideo(): Promise<GroundTruthMedia> {
  const path = await generated('solid-color.mp4', (output) => [
    ...['-f', 'lavfi', '-i', 'color=c=0xc03020:s=320x180:r=25:d=3'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', output],
  ]);
  return {
    path,
    mediaKind: 'video',
    durationMs: 3_000,
    video: { width: 320, height: 180, frameRate: 25, cutsMs: [], black: [], frozen: [span(0, 3_000)], dominantColor: '#c03020' },
    audio: null,
  };
}

/** Bytes that are no media at all, named like a video. */
export async function unreadableFile(): Promise<string> {
  const dir = join(tmpdir(), 'mss-ground-truth');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'not-media.mp4');
  await writeFile(path, 'this is not a video\n'.repeat(100));
  return path;
}

export interface LongSourceOptions {
  minutes: number;
  width?: number;
  height?: number;
  /**
   * x264 preset. `ultrafast` (the default) has no B-frames and no deblocking, so the extractor's
   * decoder shortcuts save nothing: the worst case for it. `veryfast` has both, like most
   * real uploads.
   */
  preset?: 'ultrafast' | 'veryfast';
  /**
   * Sound with events: a quiet 440 Hz tone (-33 dBFS) with a loud 1 kHz burst (-3 dBFS) 3-4 s
   * into every 10 s scene, instead of a steady -18 dBFS tone; what a find_moments run looks for
   * besides the cuts.
   */
  loudBursts?: boolean;
  /** Directory to cache the file in (kept across processes). */
  dir?: string;
}

/**
 * A long H.264 + AAC source for benchmarks, cheaply: rendering 720p test patterns is slow
 * (about 2.5x realtime here), so a 30 s segment of three 10 s scenes (two hard cuts) is rendered
 * once and repeated by stream copy. Decoding cost per minute is the same as for a fully rendered
 * file. Cached by name in `dir` (default: the OS temp dir).
 */
export function longSource(options: LongSourceOptions): Promise<string> {
  return repeatedSegment(options.minutes * 60, `long-${options.minutes}min`, options);
}

/** The first `seconds` of longSource's picture and sound (its first scene when `seconds` <= 10). */
export function shortSource(seconds: number, options: Omit<LongSourceOptions, 'minutes'> = {}): Promise<string> {
  return repeatedSegment(seconds, `short-${seconds}s`, options);
}

async function repeatedSegment(seconds: number, stem: string, options: Omit<LongSourceOptions, 'minutes'>): Promise<string> {
  const { width = 1280, height = 720, preset = 'ultrafast', loudBursts = false } = options;
  const dir = options.dir ?? join(tmpdir(), 'mss-bench-media');
  mkdirSync(dir, { recursive: true });
  const size = `${width}x${height}`;
  const variant = `${size}${preset === 'ultrafast' ? '' : `-${preset}`}${loudBursts ? '-bursts' : ''}`;
  const path = join(dir, `${stem}-${variant}.mp4`);
  if (await exists(path)) return path;
  const segment = join(dir, `segment-${variant}.mp4`);
  if (!(await exists(segment))) {
    const sound = loudBursts ? "aevalsrc='if(between(mod(t,10),3,4),0.7*sin(2*PI*1000*t),0.03*sin(2*PI*440*t))':s=48000:d=30" : 'sine=f=440:r=48000:d=30';
    // Unique per writer: test files and processes may make the same segment at once; the rename
    // makes whichever finishes last win, never a half-written file.
    const partialSegment = `${segment}.${process.pid}-${randomUUID()}.partial.mp4`;
    await ffmpeg(
      [
        ...['-f', 'lavfi', '-i', `testsrc2=s=${size}:r=25:d=10`],
        ...['-f', 'lavfi', '-i', `testsrc=s=${size}:r=25:d=10`],
        ...['-f', 'lavfi', '-i', `testsrc2=s=${size}:r=25:d=10,hue=h=120`],
        ...['-f', 'lavfi', '-i', sound],
        ...['-filter_complex', '[0][1][2]concat=n=3[v]', '-map', '[v]', '-map', '3'],
        ...['-c:v', 'libx264', '-preset', preset, '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', partialSegment],
      ],
      600_000,
    );
    await rename(partialSegment, segment);
  }
  const partial = `${path}.${process.pid}-${randomUUID()}.partial.mp4`;
  // A stream copy ends with the packet that crosses -t, so the file runs up to a frame over;
  // asking for a frame (40 ms) less keeps it within `seconds` (600.02 s would be two chunks).
  await ffmpeg(['-stream_loop', '-1', '-i', segment, '-t', String(seconds - 0.04), '-c', 'copy', partial], 600_000);
  await rename(partial, path);
  return path;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
