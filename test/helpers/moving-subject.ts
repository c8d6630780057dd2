/**
 * The framing fixture: a real face (a head cut from a photo that ships in the @vladmandic/face-api
 * npm package, demo/sample1.jpg) moving on a known path over textured backgrounds that cut every
 * 5 s, made with the npm-shipped ffmpeg. The face's square carries a thin magenta border, so a
 * rendered clip shows where the subject ended up: `subjectInOutput` finds it, and `framingError`
 * turns that into the crop centre's distance from the subject in output widths.
 */
import { mkdir, rename, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ffmpegPath } from './ground-truth-media.js';
import { toolOutput } from './processes.js';

export const SCENE_SECONDS = 5;
export const SOURCE_SIZE = { width: 640, height: 360 } as const;
/** The face's square (magenta border included) and the face's centre inside it. */
const PATCH = 150;

/** Where the subject's centre is at `seconds` into the source: a sine across the frame, one period in 8 s. */
export const subjectAt = (seconds: number): { x: number; y: number } => ({ x: 320 + 170 * Math.sin((2 * Math.PI * seconds) / 8), y: 105 + PATCH / 2 });

const sampleImage = (): string => join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');

/** Static, busy backgrounds that differ enough from one another to be hard cuts; grey (negated every other scene), so nothing but the subject's frame is magenta. */
const BACKGROUNDS = ['smptehdbars', 'rgbtestsrc', 'smptebars', 'color=c=0x507090'];

/**
 * `scenes` x 5 s of 640x360 H.264 at 25 fps with a 440 Hz tone: cuts at 5, 10, ... s, the face
 * moving along `subjectAt` throughout. Cached in the OS temp dir by its parameters.
 */
export async function movingSubjectSource(scenes: number): Promise<string> {
  const dir = join(tmpdir(), 'mss-framing-fixtures');
  const path = join(dir, `moving-subject-v2-${scenes}.mp4`);
  const made = await stat(path).then(
    (s) => s.size > 0,
    () => false,
  );
  if (made) return path;
  await mkdir(dir, { recursive: true });
  const seconds = scenes * SCENE_SECONDS;
  const { width: W, height: H } = SOURCE_SIZE;
  const backgrounds = Array.from({ length: scenes }, (_, k) => {
    const kind = BACKGROUNDS[k % BACKGROUNDS.length] ?? 'smptebars';
    const source = kind.includes('=') ? `${kind}:s=${W}x${H}:r=25:d=${SCENE_SECONDS}` : `${kind}=s=${W}x${H}:r=25:d=${SCENE_SECONDS}`;
    return `${source},hue=s=0${k % 2 ? ',negate' : ''},drawgrid=w=32:h=32:t=2:c=white@0.35,format=yuv420p,setsar=1[b${k}]`;
  });
  const graph = [
    ...backgrounds,
    `${backgrounds.map((_, k) => `[b${k}]`).join('')}concat=n=${scenes}:v=1:a=0[bg]`,
    // The right-hand head of sample1.jpg (its face box at 1422,211 282x266 of 1920x1280), 142 px square, a 4 px magenta frame.
    `[0:v]crop=460:460:1330:120,scale=${PATCH - 8}:${PATCH - 8},pad=${PATCH}:${PATCH}:4:4:color=0xff00ff,format=yuv420p,setsar=1[face]`,
    `[bg][face]overlay=x='320+170*sin(2*PI*t/8)-${PATCH / 2}':y=105:shortest=1,format=yuv420p[v]`,
  ].join(';');
  const partial = join(dir, `partial-${process.pid}-${scenes}.mp4`);
  await toolOutput(ffmpegPath(), [
    '-v',
    'error',
    '-y',
    '-loop',
    '1',
    '-framerate',
    '25',
    '-i',
    sampleImage(),
    '-f',
    'lavfi',
    '-i',
    `sine=f=440:r=48000:d=${seconds}`,
    '-filter_complex',
    graph,
    '-map',
    '[v]',
    '-map',
    '1:a',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-g',
    '50',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-t',
    String(seconds),
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    partial,
  ]);
  await rename(partial, path);
  return path;
}

export interface SubjectSighting {
  /** Seconds into the clip. */
  seconds: number;
  /** The magenta frame's centre in output pixels; null when it is not in the picture. */
  x: number | null;
}

/** Finds the subject's magenta frame in `fps` frames a second of a rendered clip of `width` x `height`. */
export async function subjectInOutput(path: string, size: { width: number; height: number }, fps = 5): Promise<SubjectSighting[]> {
  const w = Math.round(size.width / 4);
  const h = Math.round(size.height / 4);
  const raw = await toolOutput(ffmpegPath(), [
    '-v',
    'error',
    '-i',
    path,
    '-vf',
    `fps=${fps},scale=${w}:${h}:flags=area`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ]);
  const frameBytes = w * h * 3;
  const sightings: SubjectSighting[] = [];
  for (let k = 0; (k + 1) * frameBytes <= raw.length; k++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < w * h; i++) {
      const p = k * frameBytes + i * 3;
      const [r, g, b] = [raw[p] ?? 0, raw[p + 1] ?? 0, raw[p + 2] ?? 0];
      if (r > 170 && b > 170 && g < 110) {
        sum += i % w;
        count++;
      }
    }
    sightings.push({ seconds: k / fps, x: count >= 4 ? (sum / count) * (size.width / w) : null });
  }
  return sightings;
}

/** How far the crop centre was from the subject on each sighting, in output widths (Infinity: not in the picture). */
export const framingErrors = (sightings: SubjectSighting[], outputWidth: number): number[] =>
  sightings.map((s) => (s.x === null ? Infinity : Math.abs(s.x - outputWidth / 2) / outputWidth));

/** The share of frames within `tolerance` output widths, and the worst and 95th-percentile errors. */
export function framingAccuracy(errors: number[], tolerance = 0.1): { frames: number; withinShare: number; p95: number; worst: number } {
  const sorted = [...errors].sort((a, b) => a - b);
  return {
    frames: errors.length,
    withinShare: errors.filter((e) => e <= tolerance).length / Math.max(1, errors.length),
    p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? Infinity,
    worst: sorted.at(-1) ?? Infinity,
  };
}
