import type { SourceSignals, Span, TranscriptSegment } from './signals.js';
import { mergeSpans, subtractSpans } from './spans.js';

/** Sound kept on each side of a cut, so that word onsets and endings are not clipped. */
const PAD_MS = 100;
/** Sound between two pauses shorter than this (a click, a breath) is cut with them. */
const MIN_FRAGMENT_MS = 100;

/** Where words were spoken: each word's span, or the whole segment when the transcriber gave no word times. */
export function spokenSpans(transcript: readonly TranscriptSegment[]): Span[] {
  return transcript.flatMap((segment) => (segment.words.length ? segment.words : [segment])).sort((a, b) => a.startMs - b.startMs);
}

/** The gaps between consecutive words (of `spoken`, merged). */
function gapsBetween(spoken: readonly Span[]): Span[] {
  const merged = mergeSpans(spoken);
  return merged.slice(1).map((word, i) => ({ startMs: merged[i]!.endMs, endMs: word.startMs }));
}

/**
 * The parts of a moment worth keeping when pauses >= minPauseMs inside it are cut (DESIGN 10:
 * 0.4 s; `speech_cleanup: tight`).
 *
 * Pauses come from measured silence spans and, when a transcript exists, gaps between words. A
 * word gap that a loud burst overlaps is not a pause: laughter and reactions are not transcribed
 * as words, and they are what a moment is often about. Silence and word gaps that touch are one
 * pause, measured as a whole (also where it runs past the moment's edges). A word the
 * transcriber heard is never part of a pause, even where silence detection called it quiet.
 *
 * What is left between pauses is kept if it lasts at least MIN_FRAGMENT_MS (100 ms; shorter
 * sound is a click or a breath), then widened by PAD_MS (100 ms) on each side, inside the moment,
 * so word edges are not clipped: a pause of 0.4 s becomes a 0.2 s gap.
 *
 * Returns [moment] when nothing is cut, and also when nothing would be left (a moment that is
 * all pause stays as it is: the cleanup shortens moments, it never removes one). For a moment
 * that is not empty, subclips are ordered, non-overlapping, non-empty, inside the moment, in
 * integer milliseconds.
 */
export function tightSubclips(moment: Span, signals: Pick<SourceSignals, 'audio' | 'transcript'>, minPauseMs = 400): Span[] {
  const bounds = { startMs: Math.round(moment.startMs), endMs: Math.round(moment.endMs) };
  const spoken = signals.transcript ? spokenSpans(signals.transcript) : [];
  const gaps = subtractSpans(gapsBetween(spoken), signals.audio?.loudPeaks ?? []);
  const pauses = subtractSpans(mergeSpans([...(signals.audio?.silence ?? []), ...gaps]), spoken).filter((p) => p.endMs - p.startMs >= minPauseMs);
  const sound = subtractSpans([bounds], pauses).filter((s) => s.endMs - s.startMs >= MIN_FRAGMENT_MS);
  const kept = mergeSpans(
    sound.map((s) => ({ startMs: Math.round(Math.max(bounds.startMs, s.startMs - PAD_MS)), endMs: Math.round(Math.min(bounds.endMs, s.endMs + PAD_MS)) })),
  ).filter((s) => s.endMs > s.startMs);
  const uncut = kept.length === 0 || (kept.length === 1 && kept[0]!.startMs === bounds.startMs && kept[0]!.endMs === bounds.endMs);
  return uncut ? [bounds] : kept;
}
