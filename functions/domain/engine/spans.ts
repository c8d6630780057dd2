import type { Span } from './signals.js';

/** Sorts spans and joins those that overlap or are separated by at most `maxGapMs`. */
export function mergeSpans<T extends Span>(spans: readonly T[], maxGapMs = 0): T[] {
  const sorted = [...spans].sort((a, b) => a.startMs - b.startMs);
  const merged: T[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.startMs - last.endMs <= maxGapMs) {
      merged[merged.length - 1] = { ...last, endMs: Math.max(last.endMs, span.endMs) };
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}

export function dropShorterThan<T extends Span>(spans: readonly T[], minMs: number): T[] {
  return spans.filter((span) => span.endMs - span.startMs >= minMs);
}

/** The parts of `spans` not covered by any of `remove`. */
export function subtractSpans(spans: readonly Span[], remove: readonly Span[]): Span[] {
  const cuts = mergeSpans(remove);
  const result: Span[] = [];
  for (const span of spans) {
    let cursor = span.startMs;
    for (const cut of cuts) {
      if (cut.endMs <= cursor || cut.startMs >= span.endMs) continue;
      if (cut.startMs > cursor) result.push({ startMs: cursor, endMs: cut.startMs });
      cursor = Math.max(cursor, cut.endMs);
    }
    if (cursor < span.endMs) result.push({ startMs: cursor, endMs: span.endMs });
  }
  return result;
}

/** Clips spans to `bounds`, dropping those left empty. */
export function clampSpans<T extends Span>(spans: readonly T[], bounds: Span): T[] {
  return spans
    .map((span) => ({ ...span, startMs: Math.max(span.startMs, bounds.startMs), endMs: Math.min(span.endMs, bounds.endMs) }))
    .filter((span) => span.endMs > span.startMs);
}

/** Runs of consecutive `true` buckets as spans; bucket i covers [offset + i*size, offset + (i+1)*size). */
export function flagsToSpans(flags: readonly boolean[], bucketMs: number, offsetMs = 0): Span[] {
  const spans: Span[] = [];
  let runStart: number | null = null;
  for (let i = 0; i <= flags.length; i += 1) {
    if (flags[i] === true) {
      runStart ??= i;
    } else if (runStart !== null) {
      spans.push({ startMs: offsetMs + runStart * bucketMs, endMs: offsetMs + i * bucketMs });
      runStart = null;
    }
  }
  return spans;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export const round3 = (value: number): number => Math.round(value * 1000) / 1000;
