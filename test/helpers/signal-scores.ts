/**
 * How measured signals compare with fixture truth (test/helpers/ground-truth-media.ts): the
 * figures `npm run bench` prints and the signal tests assert.
 */
import type { Span } from '../../functions/domain/engine/signals.js';
import type { TransitionTruth } from './ground-truth-media.js';

/** A hard cut is found when a reported change lies within this of it. */
export const CUT_TOLERANCE_MS = 500;
/** A gradual one when a reported change lies inside its span, give or take one analysed frame (10 fps). */
export const GRADUAL_TOLERANCE_MS = 100;

export interface TransitionScore {
  truths: number;
  reported: number;
  matched: number;
  precision: number;
  recall: number;
  f1: number;
  /** Reported changes strictly inside a pan, zoom or flash (each is also a false positive). */
  insideCameraMoves: number;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** One-to-one matching, in time order: each truth takes the first unmatched report it accepts. */
export function scoreTransitions(truth: readonly TransitionTruth[], reportedMs: readonly number[], noChange: readonly Span[]): TransitionScore {
  const free = [...reportedMs].sort((a, b) => a - b);
  let matched = 0;
  for (const change of truth) {
    const accepts = (at: number) =>
      change.kind === 'cut'
        ? Math.abs(at - change.atMs) <= CUT_TOLERANCE_MS
        : at >= change.startMs - GRADUAL_TOLERANCE_MS && at <= change.endMs + GRADUAL_TOLERANCE_MS;
    const index = free.findIndex(accepts);
    if (index >= 0) {
      free.splice(index, 1);
      matched += 1;
    }
  }
  const precision = reportedMs.length ? matched / reportedMs.length : truth.length ? 0 : 1;
  const recall = truth.length ? matched / truth.length : 1;
  return {
    truths: truth.length,
    reported: reportedMs.length,
    matched,
    precision: round3(precision),
    recall: round3(recall),
    f1: round3(precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0),
    insideCameraMoves: reportedMs.filter((at) => noChange.some((s) => at > s.startMs && at < s.endMs)).length,
  };
}

const total = (spans: readonly Span[]) => spans.reduce((sum, s) => sum + Math.max(0, s.endMs - s.startMs), 0);

/** Intersection over union of two span sets (each set's own spans are disjoint). 1 when both are empty. */
export function spanIoU(truth: readonly Span[], measured: readonly Span[]): number {
  let intersection = 0;
  for (const a of truth) for (const b of measured) intersection += Math.max(0, Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs));
  const union = total(truth) + total(measured) - intersection;
  return union > 0 ? round3(intersection / union) : 1;
}
