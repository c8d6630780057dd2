import type { LevelSpan } from '../../domain/analysis/signals.js';
import type { TimedValue } from './ffmpeg-log.js';
import type { Timeline } from './timeline.js';

export const videoDefaults = {
  /** `select` scene score (0..1) above which a frame opens a new shot. */
  sceneThreshold: 0.3,
  /** Two cuts closer than this are one (a flash or a two-frame transition): the stronger stays. */
  minCutGapMs: 400,
  motionBucketMs: 1000,
  /**
   * Mean absolute luma difference (0..255) between analysed frames (0.1 s apart) that counts
   * as full motion. Levels are divided by the largest bucket seen but never by less than this,
   * so a still picture with coding noise stays near 0 instead of being stretched to 1.
   */
  motionFloor: 2,
  /** Frozen spans shorter than this (after removing black) are dropped. */
  minFrozenMs: 1000,
} as const;

export function sceneCuts(scores: readonly TimedValue[], timeline: Timeline, threshold: number): { atMs: number; score: number }[] {
  const cuts: { atMs: number; score: number }[] = [];
  for (const { timeS, value } of scores) {
    if (value <= threshold) continue;
    const cut = { atMs: timeline.toSourceMs(timeS), score: round3(value) };
    const last = cuts.at(-1);
    if (last && cut.atMs - last.atMs < videoDefaults.minCutGapMs) {
      if (cut.score > last.score) cuts[cuts.length - 1] = cut;
    } else {
      cuts.push(cut);
    }
  }
  return cuts;
}

/**
 * Motion per bucket: the mean YDIF (signalstats: mean absolute luma difference to the previous
 * analysed frame) of the bucket's frames, normalised (see `motionFloor`). Frames that are cuts
 * are left out (a cut is a change of shot, not motion), and so is the first frame (no previous
 * frame: its YDIF is 0 by definition).
 */
export function motionLevels(ydif: readonly TimedValue[], cutTimesS: ReadonlySet<number>, timeline: Timeline): LevelSpan[] {
  const bucketMs = videoDefaults.motionBucketMs;
  const buckets = new Map<number, { sum: number; count: number }>();
  for (const { timeS, value } of ydif.slice(1)) {
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
 * `#rrggbb` of the mean Y, U and V (signalstats YAVG/UAVG/VAVG, 8-bit) of all analysed frames,
 * converted with BT.601 limited-range coefficients (what untagged video decodes as). A mean,
 * not a mode: a half-red, half-blue picture comes out purple.
 */
export function meanColor(y: readonly TimedValue[], u: readonly TimedValue[], v: readonly TimedValue[]): string | null {
  if (y.length === 0 || u.length === 0 || v.length === 0) return null;
  const mean = (series: readonly TimedValue[]) => series.reduce((sum, s) => sum + s.value, 0) / series.length;
  const luma = 1.164 * (mean(y) - 16);
  const cb = mean(u) - 128;
  const cr = mean(v) - 128;
  const channels = [luma + 1.596 * cr, luma - 0.392 * cb - 0.813 * cr, luma + 2.017 * cb];
  return `#${channels.map((c) => Math.round(Math.min(255, Math.max(0, c))).toString(16).padStart(2, '0')).join('')}`;
}

export const round3 = (value: number): number => Math.round(value * 1000) / 1000;
