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
import type { Span } from '../../functions/domain/engine/signals.js';
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
const speechExpression = 'pow(max(0,sin(2*PI*4*t+2*sin(2*PI*0.37*t))),2)*(0.5*(2*mod(130*t-6.366*cos(PI*t),1)-1)+0.15*(2*random(0)-1))';

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

/** A scene change as it is in the file: a hard cut at one time, or a gradual one over a span. */
export type TransitionTruth = { kind: 'cut'; atMs: number } | { kind: 'dissolve' | 'fade' | 'wipe'; startMs: number; endMs: number };

export interface TransitionsMedia {
  path: string;
  durationMs: number;
  transitions: TransitionTruth[];
  /** Camera moves inside one shot (pans, zooms) and flash frames: no scene change may be reported in these. */
  noChange: { what: string; span: Span }[];
}

const FIXTURE_SIZE = { width: 320, height: 180 } as const;

/** One shot of the transitions fixture: a lavfi source (or graph) of `seconds`. */
interface Shot {
  /** `id` keeps the graph's labels unique. */
  source: (seconds: number, id: string) => string;
  seconds: number;
  /** Camera move or flash inside the shot, times from the shot's start. */
  noChange?: { what: string; fromS: number; toS: number };
}

/** How one shot becomes the next; gradual ones overlap the two shots by `seconds` (dissolve, wipe) or dim to black and back. */
type Join = { kind: 'cut' } | { kind: 'dissolve' | 'wipe'; seconds: number } | { kind: 'fade'; seconds: number; blackSeconds: number };

const { width: FW, height: FH } = FIXTURE_SIZE;
const sized = (graph: string) => `${graph},scale=${FW}:${FH},setsar=1,format=yuv420p,fps=25`;
const transitionShots: Shot[] = [
  { seconds: 5, source: (d) => sized(`testsrc2=s=${FW}x${FH}:r=25:d=${d}`) },
  // A pan across a scene three screens wide, 120 px/s.
  {
    seconds: 6,
    source: (d) => sized(`testsrc=s=${FW * 3}x${FH}:r=25:d=${d},crop=${FW}:${FH}:x='min(${FW * 2}\\,120*t)':y=0`),
    noChange: { what: 'pan', fromS: 0, toS: 6 },
  },
  {
    seconds: 6,
    source: (d, id) =>
      `color=c=0x2050c0:s=${FW}x${FH}:r=25:d=${d}[bg${id}];testsrc=s=40x40:r=25:d=${d}[box${id}];[bg${id}][box${id}]overlay=x='mod(t*100\\,280)':y=70,format=yuv420p`,
  },
  // A zoom out of a moving pattern (zoompan, 2x to 1x).
  {
    seconds: 6,
    source: (d) =>
      sized(`testsrc2=s=${FW * 2}x${FH * 2}:r=25:d=${d},zoompan=z='2-in/${d * 25}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${FW}x${FH}:fps=25`),
    noChange: { what: 'zoom', fromS: 0, toS: 6 },
  },
  // A slow zoom into a test card (zoompan, 1x to 1.6x).
  {
    seconds: 6,
    source: (d) =>
      sized(
        `smptehdbars=s=${FW * 2}x${FH * 2}:r=25:d=${d},drawgrid=w=40:h=40:c=white@0.6,zoompan=z='1+0.6*in/${d * 25}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:s=${FW}x${FH}:fps=25`,
      ),
    noChange: { what: 'zoom', fromS: 0, toS: 6 },
  },
  { seconds: 6, source: (d) => sized(`testsrc2=s=${FW}x${FH}:r=25:d=${d},hue=h=200`) },
  // Two white frames (80 ms) 2 s in: a flash, not a change of shot.
  {
    seconds: 6,
    source: (d) => sized(`rgbtestsrc=s=${FW}x${FH}:r=25:d=${d},drawbox=c=white:t=fill:enable='between(t\\,2\\,2.07)'`),
    noChange: { what: 'flash', fromS: 1.5, toS: 2.5 },
  },
  // A fast pan (a third of the screen a second) over a pattern.
  {
    seconds: 6,
    source: (d) => sized(`testsrc2=s=${FW * 4}x${FH}:r=25:d=${d},hue=h=90,crop=${FW}:${FH}:x='min(${FW * 3}\\,200*t)':y=0`),
    noChange: { what: 'pan', fromS: 0, toS: 6 },
  },
  {
    seconds: 5,
    source: (d, id) =>
      `smptebars=s=${FW}x${FH}:r=25:d=${d}[bars${id}];color=c=yellow:s=20x20:r=25:d=${d}[dot${id}];[bars${id}][dot${id}]overlay=x='mod(t*60\\,300)':y=20,format=yuv420p`,
  },
];
const transitionJoins: Join[] = [
  { kind: 'cut' },
  { kind: 'dissolve', seconds: 1 },
  { kind: 'wipe', seconds: 1 },
  { kind: 'fade', seconds: 1, blackSeconds: 1 },
  { kind: 'dissolve', seconds: 2 },
  { kind: 'dissolve', seconds: 0.5 },
  { kind: 'wipe', seconds: 2 },
  { kind: 'cut' },
];

/**
 * The filter graph (and truth) of the transitions fixture: shots joined by cuts, dissolves
 * (blend A*(1-T/d)+B*T/d: ffmpeg 4.1 has no xfade), wipes (blend: B left of a line crossing the
 * picture in d), and fades to black with a black hold between.
 */
function transitionsGraph(): { graph: string; durationMs: number; transitions: TransitionTruth[]; noChange: TransitionsMedia['noChange'] } {
  const parts: string[] = [];
  const pieces: string[] = [];
  const transitions: TransitionTruth[] = [];
  const noChange: TransitionsMedia['noChange'] = [];
  let t = 0;
  let carried: { label: string } | null = null;
  const ms = (s: number) => Math.round(s * 1000);
  transitionShots.forEach((shot, i) => {
    const before = i > 0 ? transitionJoins[i - 1] : undefined;
    const after = transitionJoins[i];
    const headOverlap = before && (before.kind === 'dissolve' || before.kind === 'wipe') ? before.seconds : 0;
    const tailOverlap = after && (after.kind === 'dissolve' || after.kind === 'wipe') ? after.seconds : 0;
    const label = `s${i}`;
    // Sources render a second more than the shot (zoompan drops a frame) and are cut to length.
    let chain = `${shot.source(shot.seconds + 1, String(i))},trim=duration=${shot.seconds},setpts=PTS-STARTPTS`;
    if (before?.kind === 'fade') chain += `,fade=t=in:st=0:d=${before.seconds}`;
    if (after?.kind === 'fade') chain += `,fade=t=out:st=${shot.seconds - after.seconds}:d=${after.seconds}`;
    parts.push(`${chain},split=3[${label}h][${label}m][${label}t]`);
    // Head (overlaps the previous shot's tail), middle, tail (overlaps the next shot's head).
    parts.push(`[${label}h]trim=0:${headOverlap || 0.04},setpts=PTS-STARTPTS[${label}head]`);
    parts.push(`[${label}m]trim=${headOverlap}:${shot.seconds - tailOverlap},setpts=PTS-STARTPTS[${label}mid]`);
    parts.push(`[${label}t]trim=${shot.seconds - (tailOverlap || 0.04)}:${shot.seconds},setpts=PTS-STARTPTS[${label}tail]`);
    if (!headOverlap) parts.push(`[${label}head]nullsink`);
    if (!tailOverlap) parts.push(`[${label}tail]nullsink`);
    if (shot.noChange) {
      // The part of the move outside the transitions into and out of the shot.
      const shotStart = t - headOverlap;
      const from = Math.max(shotStart + shot.noChange.fromS, t + (before?.kind === 'fade' ? before.seconds : 0));
      const to = Math.min(shotStart + shot.noChange.toS, t + shot.seconds - headOverlap - tailOverlap - (after?.kind === 'fade' ? after.seconds : 0));
      noChange.push({ what: shot.noChange.what, span: span(ms(from), ms(to)) });
    }
    if (carried && before && (before.kind === 'dissolve' || before.kind === 'wipe')) {
      const d = before.seconds;
      const expr = before.kind === 'dissolve' ? `A*(1-T/${d})+B*T/${d}` : `if(lt(X\\,W*T/${d})\\,B\\,A)`;
      parts.push(`[${carried.label}][${label}head]blend=all_expr='${expr}':shortest=1[${label}x]`);
      pieces.push(`[${label}x]`);
      transitions.push({ kind: before.kind, startMs: ms(t - d), endMs: ms(t) });
    }
    pieces.push(`[${label}mid]`);
    t += shot.seconds - headOverlap - tailOverlap;
    if (after?.kind === 'cut') transitions.push({ kind: 'cut', atMs: ms(t) });
    if (after?.kind === 'fade') {
      transitions.push({ kind: 'fade', startMs: ms(t - after.seconds), endMs: ms(t) });
      parts.push(`color=c=black:s=${FW}x${FH}:r=25:d=${after.blackSeconds},format=yuv420p[${label}black]`);
      pieces.push(`[${label}black]`);
      t += after.blackSeconds;
      transitions.push({ kind: 'fade', startMs: ms(t), endMs: ms(t + after.seconds) });
    }
    t += tailOverlap;
    carried = tailOverlap ? { label: `${label}tail` } : null;
  });
  // The pieces above overlap by design; t counted each overlap once.
  parts.push(`${pieces.join('')}concat=n=${pieces.length}:v=1:a=0[v]`);
  return { graph: parts.join(';'), durationMs: ms(t), transitions, noChange };
}

/**
 * 46.5 s at 320x180, 25 fps: nine shots joined by two hard cuts, three dissolves (0.5, 1,
 * 2 s), two wipes (1, 2 s) and a fade to black and back (1 s each way, 1 s of black); inside
 * shots, two pans (120 and 200 px/s), two zooms (zoompan: out of a moving pattern, into a
 * test card) and a 2-frame white flash. `degraded`: the same picture with film grain,
 * re-encoded at 120 kb/s (x264 veryfast, blocky), as phones and messaging apps leave it. The truth is also written beside
 * the file (`<file>.truth.json`).
 */
export async function transitionsVideo(options: { degraded?: boolean } = {}): Promise<TransitionsMedia> {
  const { graph, durationMs, transitions, noChange } = transitionsGraph();
  const clean = await generated('transitions.mp4', (output) => [
    ...['-filter_complex', graph, '-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', output],
  ]);
  const path = options.degraded
    ? await generated('transitions-degraded.mp4', (output) => [
        ...['-i', clean, '-vf', 'noise=alls=18:allf=t', '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '120k', '-pix_fmt', 'yuv420p', output],
      ])
    : clean;
  const media = { path, durationMs, transitions, noChange };
  await writeTruth(path, media);
  return media;
}

async function writeTruth(path: string, truth: object): Promise<void> {
  const file = `${path}.truth.json`;
  if (await exists(file)) return;
  const partial = `${file}.${process.pid}-${randomUUID()}.partial`;
  await writeFile(partial, `${JSON.stringify(truth, null, 2)}\n`);
  await rename(partial, file);
}

export interface SoundsMedia {
  path: string;
  durationMs: number;
  /** Each class where it holds; classes overlap (music under speech, a bang over music). */
  truth: { speech: Span[]; music: Span[]; silence: Span[]; loud: Span[] };
}

const SOUNDS_RATE = 16_000;

/**
 * Speech from espeak-ng (Debian package `espeak-ng`), trimmed of its leading and trailing
 * silence by ffmpeg, as raw 16 kHz mono s16le: the clip's length is its byte count / 32000.
 */
async function spokenClip(text: string, dir: string): Promise<{ path: string; ms: number }> {
  const key = createHash('sha256')
    .update(JSON.stringify(['espeak-ng -s 150', text, ffmpegPath()]))
    .digest('hex')
    .slice(0, 12);
  const path = join(dir, `speech-${key}.s16`);
  if (!(await exists(path))) {
    mkdirSync(dir, { recursive: true });
    const wav = join(dir, `speech-${key}.${process.pid}-${randomUUID()}.wav`);
    const spoken = await runTool('espeak-ng', ['-s', '150', '-w', wav, text], { timeoutMs: 60_000, maxOutputBytes: 1024 * 1024 });
    if (spoken.exitCode !== 0) throw new Error(`espeak-ng failed (is the espeak-ng package installed?): ${spoken.stderr}`);
    const trim = 'silenceremove=start_periods=1:start_threshold=-60dB';
    const partial = `${path}.${process.pid}-${randomUUID()}.partial`;
    await ffmpeg(['-i', wav, '-af', `aresample=${SOUNDS_RATE},${trim},areverse,${trim},areverse`, '-ac', '1', '-f', 's16le', partial]);
    await rename(partial, path);
  }
  return { path, ms: Math.round(((await stat(path)).size / 2 / SOUNDS_RATE) * 1000) };
}

/**
 * About 60 s of mono AAC (.m4a) where the four audio classes overlap as in real recordings:
 * - 0-26 s a music bed (three-note chords of sines, a new chord every 2 s, about -30 dBFS) with
 *   a loud bang (white noise, about -11 dBFS) at 6-7 s and espeak-ng speech over it from 13 s
 *   (about 8 s);
 * - 26-29 s digital silence;
 * - 29-46 s steady noise (about -36 dBFS) with speech over it from 31 s and a bang at 42-43 s;
 * - 46 s to the end digital silence, with speech alone from 49 s.
 * Speech truth is each clip's own span (espeak-ng output trimmed of its silence).
 */
export async function overlappingSoundsAudio(): Promise<SoundsMedia> {
  const dir = join(tmpdir(), 'mss-ground-truth');
  const lines = [
    'the weather station on the hill reports a cold front moving in from the north tonight and the roads near the lake may freeze before the sun comes up',
    'please remember to bring the signed forms to the front desk before nine in the morning so that the team can start the review on time',
    'our next speaker has spent twenty years building bridges across the river valley and will tell us what the floods taught her about steel',
  ];
  const clips = await Promise.all(lines.map((line) => spokenClip(line, dir)));
  const starts = [13_000, 31_000, 49_000];
  const speech = clips.map((clip, i) => span(starts[i] ?? 0, (starts[i] ?? 0) + clip.ms));
  const durationMs = Math.max(...speech.map((s) => s.endMs)) + 3_000;
  const d = durationMs / 1000;
  // Chords (Hz) of the bed, one every 2 s: C, A minor, F, G.
  const chords = [
    [261.6, 329.6, 392.0],
    [220.0, 261.6, 329.6],
    [174.6, 220.0, 261.6],
    [196.0, 246.9, 293.7],
  ];
  const note = (n: number) => `if(eq(c\\,0)\\,${chords[0]?.[n]}\\,if(eq(c\\,1)\\,${chords[1]?.[n]}\\,if(eq(c\\,2)\\,${chords[2]?.[n]}\\,${chords[3]?.[n]})))`;
  const chord = [0, 1, 2].map((n) => `sin(2*PI*${note(n)}*t)`).join('+');
  const noise = '(2*random(0)-1)';
  const bed =
    `if(lt(t\\,26)\\,0.025*(${chord})+if(between(t\\,6\\,7)\\,0.5*${noise}\\,0)\\,` +
    `if(between(t\\,29\\,46)\\,0.027*${noise}+if(between(t\\,42\\,43)\\,0.5*${noise}\\,0)\\,0))`;
  // aevalsrc has no variables: the chord index c is spelled out where it is used.
  const bedExpression = bed.replaceAll('eq(c\\,', 'eq(mod(floor(t/2)\\,4)\\,');
  const path = await generated('overlapping-sounds.m4a', (output) => [
    ...clips.flatMap((clip) => ['-f', 's16le', '-ar', String(SOUNDS_RATE), '-ac', '1', '-i', clip.path]),
    ...['-f', 'lavfi', '-i', `aevalsrc='${bedExpression}':c=mono:s=${SOUNDS_RATE}:d=${d}`],
    '-filter_complex',
    [
      ...clips.map((_, i) => `[${i}]adelay=${starts[i]},apad=whole_len=${Math.round(d * SOUNDS_RATE)}[s${i}]`),
      // Every input lasts the whole file, so amix's 1/4 weight is constant and volume=4 undoes it: a plain sum.
      `[s0][s1][s2][${clips.length}]amix=inputs=4:duration=longest,volume=4[a]`,
    ].join(';'),
    ...['-map', '[a]', '-t', String(d), '-c:a', 'aac', '-b:a', '96k', output],
  ]);
  const media: SoundsMedia = {
    path,
    durationMs,
    truth: {
      speech,
      music: [span(0, 26_000)],
      silence: [span(26_000, 29_000), span(46_000, speech[2]?.startMs ?? 0), span(speech[2]?.endMs ?? 0, durationMs)],
      loud: [span(6_000, 7_000), span(42_000, 43_000)],
    },
  };
  await writeTruth(path, media);
  return media;
}

export interface PulsingSoundsMedia {
  path: string;
  durationMs: number;
  /** Speech (espeak-ng), and each kind of regularly pulsing sound nobody speaks in, by name. */
  truth: { speech: Span[]; pulsing: { what: string; span: Span }[] };
}

/**
 * About 53 s of mono AAC (.m4a) of sound whose loudness swings at syllable rate without a voice,
 * each 8 s, then speech over the first of them:
 * - 0-8 s a C major chord with a 5 Hz tremolo (60-100%);
 * - 8-16 s a sung-like tone (440 Hz and two partials) with 5.5 Hz vibrato and tremolo;
 * - 16-24 s a pad of seven partials pumped to silence 4 times a second;
 * - 24-32 s white noise gated 6 times a second (a shaker);
 * - 32-40 s a drum pattern at 120 bpm: kick on the beat, noise snare off it, hi-hat in 8ths;
 * - 40-42 s digital silence; from 42 s espeak-ng speech (about 8 s) over the tremolo chord, to the end.
 */
export async function pulsingSoundsAudio(): Promise<PulsingSoundsMedia> {
  const dir = join(tmpdir(), 'mss-ground-truth');
  const clip = await spokenClip(
    'our next speaker has spent twenty years building bridges across the river valley and will tell us what the floods taught her about steel',
    dir,
  );
  const speechStart = 42_000;
  const speech = span(speechStart, speechStart + clip.ms);
  const durationMs = speech.endMs + 2_000;
  const d = durationMs / 1000;
  const noise = '(2*random(0)-1)';
  const tremoloChord = '(0.8+0.2*sin(2*PI*5*t))*0.08*(sin(2*PI*261.6*t)+sin(2*PI*329.6*t)+sin(2*PI*392*t))';
  const parts = [
    [0, 8, tremoloChord],
    [8, 16, '(0.5+0.5*sin(2*PI*5.5*t))*0.2*(sin(2*PI*440*t+8*sin(2*PI*5.5*t))+0.5*sin(2*PI*880*t+16*sin(2*PI*5.5*t))+0.3*sin(2*PI*1320*t+24*sin(2*PI*5.5*t)))'],
    [
      16,
      24,
      'pow(max(0\\,sin(2*PI*4*t))\\,2)*0.1*(sin(2*PI*220*t)+sin(2*PI*277*t)+sin(2*PI*330*t)+sin(2*PI*440*t)+sin(2*PI*554*t)+0.5*sin(2*PI*880*t)+0.3*sin(2*PI*1660*t))',
    ],
    [24, 32, `pow(max(0\\,sin(2*PI*6*t))\\,4)*0.3*${noise}`],
    [
      32,
      40,
      `0.6*exp(-30*mod(t\\,0.5))*sin(2*PI*(60+100*exp(-40*mod(t\\,0.5)))*mod(t\\,0.5)*6)+0.3*exp(-25*mod(t+0.25\\,0.5))*${noise}+0.1*exp(-60*mod(t\\,0.125))*${noise}`,
    ],
    [42, d, tremoloChord],
  ] as const;
  const bed = parts.reduceRight((rest, [from, to, sound]) => `if(between(t\\,${from}\\,${to})\\,${sound}\\,${rest})`, '0');
  const path = await generated('pulsing-sounds.m4a', (output) => [
    ...['-f', 's16le', '-ar', String(SOUNDS_RATE), '-ac', '1', '-i', clip.path],
    ...['-f', 'lavfi', '-i', `aevalsrc='${bed}':c=mono:s=${SOUNDS_RATE}:d=${d}`],
    ...['-filter_complex', `[0]adelay=${speechStart},apad=whole_len=${Math.round(d * SOUNDS_RATE)}[s];[s][1]amix=inputs=2:duration=longest,volume=2[a]`],
    ...['-map', '[a]', '-t', String(d), '-c:a', 'aac', '-b:a', '96k', output],
  ]);
  const names = ['tremolo chord', 'vibrato tone', 'pumped pad', 'gated noise', 'drum pattern'];
  const media: PulsingSoundsMedia = {
    path,
    durationMs,
    truth: { speech: [speech], pulsing: names.map((what, i) => ({ what, span: span(i * 8_000, (i + 1) * 8_000) })) },
  };
  await writeTruth(path, media);
  return media;
}
