import type { Size } from './framing.js';
import type { ObservedFace, SubjectSample, SubjectTrack } from './subjects.js';

/**
 * From what the samples show to where the crop window goes over time: pure code, no ffmpeg.
 *
 * - A shot is the stretch between two cuts (or between two chosen speakers): inside it the window
 *   pans smoothly, across it the window jumps (never a pan over a cut).
 * - Targets are smoothed with a centred moving average (offline: no lag), then followed with a
 *   dead zone (small movements of the subject leave the window still) and a bounded pan speed.
 * - The window never leaves the frame. A shot with no face and no salient region: centre crop.
 */

/** The crop window's top-left corner at `timeMs`. `jump`: the window moves there at once (a cut), else linearly from the previous key. */
export interface CropKey {
  timeMs: number;
  x: number;
  y: number;
  jump?: boolean;
}

interface PathOptions {
  /** Smaller target moves than this fraction of the crop width leave the window where it is. */
  deadZone: number;
  /** Fastest pan, in crop widths per second. */
  maxSpeed: number;
  /** Width of the centred smoothing of the targets (crop-path's `smooth`). */
  smoothingMs: number;
  /** A face must beat the followed one by this factor for `switchAfterMs` before the window jumps to it. */
  switchFactor: number;
  switchAfterMs: number;
}

export const DEFAULT_PATH_OPTIONS: PathOptions = { deadZone: 0.04, maxSpeed: 0.8, smoothingMs: 2000, switchFactor: 1.5, switchAfterMs: 1000 };

interface Point {
  x: number;
  y: number;
}

const centreOf = (r: { x: number; y: number; width: number; height: number }): Point => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const prominence = (f: ObservedFace): number => f.width * f.height * f.score;

/**
 * Which face the window follows in each sample (speaker-aware): the most prominent face, weighted
 * up by its mouth activity (the one talking), with hysteresis: the followed face stays until
 * another beats it clearly for a while, and a switch starts a new shot (`switched`).
 */
export function followedFaces(
  samples: SubjectSample[],
  intervalMs: number,
  options: PathOptions = DEFAULT_PATH_OPTIONS,
): { face: ObservedFace | null; switched: boolean }[] {
  const needed = Math.max(1, Math.ceil(options.switchAfterMs / Math.max(1, intervalMs)));
  let current: ObservedFace | null = null;
  let challenger = 0;
  return samples.map((sample) => {
    if (sample.cut) {
      current = null;
      challenger = 0;
    }
    if (sample.faces.length === 0) return { face: null, switched: false };
    const loudest = Math.max(1, ...sample.faces.map((f) => f.activity));
    const score = (f: ObservedFace) => prominence(f) * (1 + f.activity / loudest);
    const best = sample.faces.reduce((a, b) => (score(b) > score(a) ? b : a));
    const followed: ObservedFace | null = current;
    const matched: ObservedFace | undefined = followed
      ? sample.faces
          .filter((f) => Math.hypot(centreOf(f).x - centreOf(followed).x, centreOf(f).y - centreOf(followed).y) < 1.5 * Math.max(f.width, followed.width))
          .sort((a, b) => Math.hypot(centreOf(a).x - centreOf(followed).x, 0) - Math.hypot(centreOf(b).x - centreOf(followed).x, 0))[0]
      : undefined;
    if (!followed) {
      current = best;
      challenger = 0;
      return { face: best, switched: false };
    }
    if (!matched) {
      // The followed face is gone and another is there: the window holds until that one has lasted.
      if (++challenger < needed) return { face: null, switched: false };
      current = best;
      challenger = 0;
      return { face: best, switched: true };
    }
    if (best !== matched && score(best) > options.switchFactor * score(matched)) challenger++;
    else challenger = 0;
    if (challenger >= needed) {
      current = best;
      challenger = 0;
      return { face: best, switched: true };
    }
    current = matched;
    return { face: matched, switched: false };
  });
}

/** Value at 0 of the least-squares polynomial (degree 2 when there are 4 points or more, else 1, else 0) through (j, v). */
function fitAtZero(js: number[], vs: number[]): number {
  const n = js.length;
  const sum = (f: (j: number, v: number) => number) => js.reduce((acc, j, k) => acc + f(j, vs[k] ?? 0), 0);
  const s0 = n;
  const s1 = sum((j) => j);
  const s2 = sum((j) => j * j);
  const t0 = sum((_, v) => v);
  if (n >= 4) {
    const s3 = sum((j) => j ** 3);
    const s4 = sum((j) => j ** 4);
    const t1 = sum((j, v) => j * v);
    const t2 = sum((j, v) => j * j * v);
    // Cramer's rule on [[s0 s1 s2][s1 s2 s3][s2 s3 s4]] * [c0 c1 c2] = [t0 t1 t2], for c0.
    const det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2);
    if (Math.abs(det) > 1e-9) return (t0 * (s2 * s4 - s3 * s3) - s1 * (t1 * s4 - s3 * t2) + s2 * (t1 * s3 - s2 * t2)) / det;
  }
  if (n >= 2) {
    const t1 = sum((j, v) => j * v);
    const det = s0 * s2 - s1 * s1;
    if (Math.abs(det) > 1e-9) return (s2 * t0 - s1 * t1) / det;
  }
  return t0 / Math.max(1, n);
}

/**
 * Centred smoothing over a shot's targets (same length): a quadratic fitted by least squares to
 * the targets within `window` samples around each one, read at that sample (Savitzky-Golay). It
 * averages out detector jitter, keeps a subject's turn where it is (a moving average cuts corners),
 * and at a shot's ends still follows a moving subject instead of lagging behind it.
 */
function smooth(points: Point[], window: number): Point[] {
  const half = Math.max(0, Math.floor(window / 2));
  return points.map((_, i) => {
    const from = Math.max(0, i - half);
    const to = Math.min(points.length - 1, i + half);
    const js: number[] = [];
    for (let k = from; k <= to; k++) js.push(k - i);
    const around = points.slice(from, to + 1);
    return {
      x: fitAtZero(
        js,
        around.map((p) => p.x),
      ),
      y: fitAtZero(
        js,
        around.map((p) => p.y),
      ),
    };
  });
}

/** Drops keys that lie on the line between their neighbours (within `tolerance` pixels); jumps stay. */
function simplify(keys: CropKey[], tolerance = 1): CropKey[] {
  if (keys.length <= 2) return keys;
  const out: CropKey[] = [keys[0] as CropKey];
  for (let i = 1; i < keys.length - 1; i++) {
    const prev = out[out.length - 1] as CropKey;
    const key = keys[i] as CropKey;
    const next = keys[i + 1] as CropKey;
    if (key.jump || next.jump) {
      out.push(key);
      continue;
    }
    const f = (key.timeMs - prev.timeMs) / Math.max(1, next.timeMs - prev.timeMs);
    const onLine = Math.abs(prev.x + (next.x - prev.x) * f - key.x) <= tolerance && Math.abs(prev.y + (next.y - prev.y) * f - key.y) <= tolerance;
    if (!onLine) out.push(key);
  }
  out.push(keys[keys.length - 1] as CropKey);
  return out;
}

/**
 * The crop window's path for targets (subject centres in source pixels, null where nothing was
 * seen) over the samples: one shot per stretch between `breaks`, the window's centre following
 * the smoothed targets with a dead zone and bounded speed, clamped so the window stays inside the
 * frame. Returns keys of the window's top-left corner, simplified.
 */
export function pathFor(
  track: Pick<SubjectTrack, 'source' | 'intervalMs' | 'samples'>,
  crop: Size,
  targets: (Point | null)[],
  breaks: boolean[],
  options: PathOptions = DEFAULT_PATH_OPTIONS,
): CropKey[] {
  const { source, samples, intervalMs } = track;
  const clampX = (x: number) => Math.min(Math.max(x, crop.width / 2), source.width - crop.width / 2);
  const clampY = (y: number) => Math.min(Math.max(y, crop.height / 2), source.height - crop.height / 2);
  const middle = { x: source.width / 2, y: source.height / 2 };
  const keys: CropKey[] = [];
  const window = Math.max(1, Math.round(options.smoothingMs / Math.max(1, intervalMs)));
  const deadZone = options.deadZone * crop.width;
  const step = (options.maxSpeed * crop.width * intervalMs) / 1000;

  let start = 0;
  while (start < samples.length) {
    let end = start + 1;
    while (end < samples.length && !breaks[end]) end++;
    // The shot's targets: gaps hold the last seen target (the first one before any is seen).
    const seen = targets.slice(start, end);
    const firstSeen = seen.find((p) => p !== null) ?? null;
    let last = firstSeen ?? middle;
    const filled = seen.map((p) => (last = p ?? last));
    const smoothed = smooth(filled, window);
    // Up to the next cut the subject goes on much as it went: the shot's last target is carried on
    // along its line at half its speed (a window that held still would lose a moving subject before
    // the cut; one that kept full speed would overshoot a subject that stops).
    const next = samples[end];
    const lastAt = samples[end - 1]?.timeMs ?? 0;
    const cutAt = next ? (next.cutAtMs ?? next.timeMs) : lastAt;
    const [p0, p1] = [smoothed.at(-2), smoothed.at(-1)];
    const times = samples.slice(start, end).map((s) => s.timeMs);
    if (next && p0 && p1 && cutAt - lastAt > 1) {
      const f = (0.5 * (cutAt - 1 - lastAt)) / Math.max(1, intervalMs);
      smoothed.push({ x: p1.x + (p1.x - p0.x) * f, y: p1.y + (p1.y - p0.y) * f });
      times.push(cutAt - 1);
    }
    const goal = smoothed.map((p) => ({ x: clampX(p.x), y: clampY(p.y) }));
    let at = goal[0] ?? middle;
    let following = false;
    let previousTime = times[0] ?? 0;
    goal.forEach((target, i) => {
      const timeMs = times[i] ?? previousTime;
      const stepHere = (step * (timeMs - previousTime || intervalMs)) / Math.max(1, intervalMs);
      previousTime = timeMs;
      const dx = target.x - at.x;
      const dy = target.y - at.y;
      const distance = Math.hypot(dx, dy);
      if (!following && distance > deadZone) following = true;
      if (following) {
        const move = Math.min(distance, stepHere);
        at = distance === 0 ? at : { x: at.x + (dx / distance) * move, y: at.y + (dy / distance) * move };
        if (distance - move < 0.5) following = false;
      }
      const sample = samples[start] as SubjectSample;
      // A new shot's window is there from the cut on (a followed speaker's, from this sample).
      const jumpAt = Math.max((keys.at(-1)?.timeMs ?? 0) + 1, sample.cutAtMs ?? sample.timeMs);
      keys.push({
        timeMs: i === 0 && start > 0 ? jumpAt : timeMs,
        x: Math.round(at.x - crop.width / 2),
        y: Math.round(at.y - crop.height / 2),
        ...(i === 0 && start > 0 ? { jump: true } : {}),
      });
    });
    start = end;
  }
  return simplify(keys);
}

/** `auto`: follow the speaking face, else the salient region, else the centre. */
export function autoPath(track: SubjectTrack, crop: Size, options: PathOptions = DEFAULT_PATH_OPTIONS): CropKey[] {
  const followed = followedFaces(track.samples, track.intervalMs, options);
  const targets = track.samples.map((sample, i) => {
    const face = followed[i]?.face;
    // A little headroom: the face sits slightly above the middle of a window shorter than the frame.
    if (face) return { x: centreOf(face).x, y: centreOf(face).y + 0.1 * crop.height };
    return sample.salient ? centreOf(sample.salient) : null;
  });
  const breaks = track.samples.map((s, i) => s.cut || (followed[i]?.switched ?? false));
  return pathFor(track, crop, targets, breaks, options);
}

/**
 * `stacked`: the two most prominent faces, left one in the first panel, right one in the second,
 * when at least half the samples show two; null otherwise (the caller splits the frame in halves).
 */
export function stackedPaths(track: SubjectTrack, panel: Size, options: PathOptions = DEFAULT_PATH_OPTIONS): [CropKey[], CropKey[]] | null {
  const pairs = track.samples.map((sample) => {
    if (sample.faces.length < 2) return null;
    const [a, b] = [...sample.faces].sort((p, q) => prominence(q) - prominence(p));
    if (!a || !b) return null;
    return [centreOf(a), centreOf(b)].sort((p, q) => p.x - q.x) as [Point, Point];
  });
  if (pairs.filter(Boolean).length * 2 < Math.max(1, pairs.length)) return null;
  const breaks = track.samples.map((s) => s.cut);
  const headroom = (p: Point | undefined) => (p ? { x: p.x, y: p.y + 0.1 * panel.height } : null);
  return [
    pathFor(
      track,
      panel,
      pairs.map((p) => headroom(p?.[0])),
      breaks,
      options,
    ),
    pathFor(
      track,
      panel,
      pairs.map((p) => headroom(p?.[1])),
      breaks,
      options,
    ),
  ];
}

/** Where the window's top-left corner is at `timeMs` on a path: what the ffmpeg expression renders (tests and figures). */
export function positionAt(keys: CropKey[], timeMs: number): { x: number; y: number } {
  const first = keys[0];
  if (!first) return { x: 0, y: 0 };
  let pos = { x: first.x, y: first.y };
  for (let i = 1; i < keys.length; i++) {
    const prev = keys[i - 1] as CropKey;
    const key = keys[i] as CropKey;
    if (timeMs < key.timeMs && key.jump) break;
    if (key.jump) {
      pos = { x: key.x, y: key.y };
      continue;
    }
    const f = Math.min(1, Math.max(0, (timeMs - prev.timeMs) / Math.max(1, key.timeMs - prev.timeMs)));
    pos = { x: prev.x + (key.x - prev.x) * f, y: prev.y + (key.y - prev.y) * f };
    if (timeMs < key.timeMs) break;
  }
  return pos;
}
