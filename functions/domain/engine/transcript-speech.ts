import type { SourceSignals, TranscriptSegment } from './signals.js';
import { mergeSpans } from './spans.js';

/**
 * A chunk's signals with its transcript (DESIGN §11). When a transcriber ran, speech is where it
 * heard words (for `moonshine`, its voice activity detector's spans that held words), not the
 * signal heuristic's guess, which music with a syllable-rate pulse can fool; the heuristic stays
 * for sources analysed without a transcriber. No transcript (null): the signals as measured.
 */
export function withTranscript(signals: Omit<SourceSignals, 'transcript'>, transcript: TranscriptSegment[] | null): SourceSignals {
  if (!transcript || !signals.audio) return { ...signals, transcript };
  const speech = mergeSpans(transcript.map(({ startMs, endMs }) => ({ startMs, endMs })));
  return { ...signals, audio: { ...signals.audio, speech }, transcript };
}
