import type { LevelSpan } from '../../domain/engine/signals.js';
import type { TimedValue } from './ffmpeg-log.js';
import { round3 } from '../../domain/engine/spans.js';
import type { Timeline } from './timeline.js';

export const videoDefaults = {
  /** `select` scene score (0..1) above which a frame opens a new shot (a hard cut). */
  sceneThreshold: 0.3,
  /** Two cuts closer than this are one (a flash or a two-frame transition): the stronger stays. */
  minCutGapMs: 400,
  motionBucketMs: 1000,
  /**
   * Mean absolute luma difference (0..255) between analysed frames (0.1 s apart, as 64x36
   * thumbnails) that counts as full motion. Levels are divided by the largest bucket seen but
   * never by less than this, so a still picture with coding noise (0.0-0.3) stays under 0.1
   * instead of being stretched to 1. For scale: the ground-truth test patterns move at 1-4.5.
   */
  motionFloor: 3,
  /** Frozen spans shorter than this (after removing black) are dropped. */
  minFrozenMs: 1000,
} as const;

/** A dissolve, fade or wipe on the analysed stream (seconds from the window start); see transitions.ts. */
interface GradualChange {
  fromS: number;
  toS: number;
  /** Comparable to a cut's scene score: mean |B - A| of the 0..255 luma over 100. */
  score: number;
}

/**
 * Scene changes: frames whose scene score crosses the threshold (hard cuts), except the jumps
 * into and out of a flash, plus gradual changes dated at their middle. A gradual change that
 * holds a hard cut, or lies within `minCutGapMs` of one, is that cut.
 */
export function sceneCuts(
  scores: readonly TimedValue[],
  timeline: Timeline,
  threshold: number,
  extra: { flashTimesS?: ReadonlySet<number>; gradual?: readonly GradualChange[] } = {},
): { atMs: number; score: number }[] {
  const cuts: { atMs: number; score: number }[] = [];
  for (const { timeS, value } of scores) {
    if (value <= threshold || extra.flashTimesS?.has(timeS)) continue;
    const cut = { atMs: timeline.toSourceMs(timeS), score: round3(value) };
    const last = cuts.at(-1);
    if (last && cut.atMs - last.atMs < videoDefaults.minCutGapMs) {
      if (cut.score > last.score) cuts[cuts.length - 1] = cut;
    } else {
      cuts.push(cut);
    }
  }
  const gap = videoDefaults.minCutGapMs;
  const gradual = (extra.gradual ?? [])
    .map((change) => ({
      fromMs: timeline.toSourceMs(change.fromS),
      toMs: timeline.toSourceMs(change.toS),
      cut: { atMs: timeline.toSourceMs((change.fromS + change.toS) / 2), score: round3(Math.min(1, change.score)) },
    }))
    .filter(({ fromMs, toMs }) => !cuts.some((c) => c.atMs >= fromMs - gap && c.atMs <= toMs + gap))
    .map(({ cut }) => cut);
  return [...cuts, ...gradual].sort((a, b) => a.atMs - b.atMs);
}

/**
 * Motion per bucket: the mean frame difference (mean absolute luma difference, 0..255, of
 * consecutive analysed frames as 64x36 thumbnails; see video-frames.ts) of the bucket's frames,
 * normalised (see `motionFloor`). Frames that are cuts are left out: a cut is a change of
 * shot, not motion.
 */
export function motionLevels(differences: readonly TimedValue[], cutTimesS: ReadonlySet<number>, timeline: Timeline): LevelSpan[] {
  const bucketMs = videoDefaults.motionBucketMs;
  const buckets = new Map<number, { sum: number; count: number }>();
  for (const { timeS, value } of differences) {
    if (cutTimesS.has(timeS)) continue;
    const index = Math.floor((timeS * 1000) / bucketMs);
    const bucket = buckets.get(index) ?? { sum: 0, count: 0 };
    bucket.sum += value;
    bucket.count += 1;
    buckets.set(index, bucket);
  }
  const means = [...buckets.entries()].sort(([a], [b]) => a - b).map(([index, { sum, count }]) => ({ index, mean: sum / count }));
  const scale = Math.max(videoDefaults.motionFloor, ...means.map((m) => m.mean));
  return means
    .map(({ index, mean }) => ({
      startMs: timeline.toSourceMs((index * bucketMs) / 1000),
      endMs: timeline.toSourceMs(((index + 1) * bucketMs) / 1000),
      level: round3(Math.min(1, mean / scale)),
    }))
    .filter((span) => span.endMs > span.startMs);
}

/**
 * `#rrggbb` of the mean Y, U and V (8-bit) of all analysed frames, converted with BT.601
 * limited-range coefficients (what untagged video decodes as). A mean, not a mode: a half-red,
 * half-blue picture comes out purple.
 */
export function meanColor(meanYuv: readonly [number, number, number] | null): string | null {
  if (!meanYuv) return null;
  const [y, u, v] = meanYuv;
  const luma = 1.164 * (y - 16);
  const cb = u - 128;
  const cr = v - 128;
  const channels = [luma + 1.596 * cr, luma - 0.392 * cb - 0.813 * cr, luma + 2.017 * cb];
  return `#${channels
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}
