import type { LevelSpan } from '../../domain/engine/signals.js';
import type { TimedValue } from './ffmpeg-log.js';
import { median, round3 } from '../../domain/engine/spans.js';
import type { Timeline } from './timeline.js';

export const audioDefaults = {
  loudnessBucketMs: 500,
  /** ebur128 prints about -120.7 LUFS for digital silence; the contract's floor is -120. */
  silenceLufs: -120,
  /** ebur128's integrated value when no 400 ms block passed its -70 LUFS absolute gate. */
  noIntegratedLufs: -70,
  /** A bucket is a peak when it is this far above the median of its surroundings. */
  peakRiseLu: 10,
  /** Surroundings: this much on each side of the bucket. */
  peakContextMs: 5000,
  /** Quieter than this is never a peak. */
  peakMinLufs: -45,
  /** Buckets under this are "no sound" and left out of the surroundings (see loudPeaks). */
  soundFloorLufs: -70,
} as const;

/** ebur128's momentary value covers the 400 ms before its timestamp: date it by its centre. */
const MOMENTARY_CENTRE_S = 0.2;

/**
 * Momentary loudness per 0.5 s bucket: the median of the (about five) 100 ms readings whose
 * 400 ms window is centred in the bucket, so a bucket reads loud only if most of it is.
 * `atMs` is the bucket start.
 */
export function loudnessBuckets(momentary: readonly TimedValue[], timeline: Timeline): { atMs: number; lufs: number }[] {
  const bucketS = audioDefaults.loudnessBucketMs / 1000;
  const buckets = new Map<number, number[]>();
  for (const { timeS, value } of momentary) {
    const index = Math.floor(Math.max(0, timeS - MOMENTARY_CENTRE_S) / bucketS);
    const values = buckets.get(index) ?? [];
    values.push(value);
    buckets.set(index, values);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, values]) => ({
      atMs: timeline.window.startMs + index * audioDefaults.loudnessBucketMs,
      lufs: Math.round(Math.max(audioDefaults.silenceLufs, median(values)) * 10) / 10,
    }))
    .filter((bucket) => bucket.atMs < timeline.window.endMs);
}

export const integratedOrNull = (lufs: number | null): number | null => (lufs === null || lufs <= audioDefaults.noIntegratedLufs ? null : lufs);

/**
 * Short spans clearly louder than their surroundings: buckets at least `peakRiseLu` above the
 * median of the sounding buckets (bucket itself included) within `peakContextMs` on either
 * side, joined when adjacent. Silence is no level of sound, so it is left out of the median:
 * otherwise the return of a quiet tone after a pause would be a "peak". The cost: a lone sound
 * in long silence has only itself as surroundings and is not a peak. A span longer than about
 * the context cannot qualify either (it would be its own surroundings). `level` is the span's
 * largest rise divided by the largest rise of any span (1 = the strongest peak).
 */
export function loudPeaks(buckets: readonly { atMs: number; lufs: number }[], timeline: Timeline): LevelSpan[] {
  const { loudnessBucketMs, peakContextMs, peakRiseLu, peakMinLufs, soundFloorLufs } = audioDefaults;
  const reach = Math.round(peakContextMs / loudnessBucketMs);
  const rises = buckets.map((bucket, i) => {
    if (bucket.lufs < peakMinLufs) return 0;
    const around = buckets
      .slice(Math.max(0, i - reach), i + reach + 1)
      .map((b) => b.lufs)
      .filter((lufs) => lufs >= soundFloorLufs);
    return bucket.lufs - median(around);
  });
  const peaks: LevelSpan[] = [];
  buckets.forEach((bucket, i) => {
    const rise = rises[i] ?? 0;
    if (rise < peakRiseLu) return;
    const endMs = Math.min(timeline.window.endMs, bucket.atMs + loudnessBucketMs);
    const last = peaks.at(-1);
    if (last && last.endMs >= bucket.atMs) {
      last.endMs = endMs;
      last.level = Math.max(last.level, rise);
    } else {
      peaks.push({ startMs: bucket.atMs, endMs, level: rise });
    }
  });
  const strongest = Math.max(0, ...peaks.map((p) => p.level));
  return peaks.map((p) => ({ ...p, level: round3(p.level / strongest) }));
}
