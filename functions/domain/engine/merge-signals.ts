import { mergeSpans } from './spans.js';
import type { LevelSpan, Span, SourceSignals } from './signals.js';
import type { VisualSignals } from './visual.js';

/** Spans cut at a chunk boundary become one again. */
const joined = <T extends Span>(lists: T[][]): T[] => mergeSpans(lists.flat());

/** Levelled spans likewise, each as strong as the strongest of its parts. */
const joinedLevels = (lists: LevelSpan[][]): LevelSpan[] =>
  joined(lists).map((span) => ({
    ...span,
    level: Math.max(
      ...lists
        .flat()
        .filter((part) => part.startMs >= span.startMs && part.endMs <= span.endMs)
        .map((part) => part.level),
    ),
  }));

/** Sampled frames of consecutive chunks, in order; every chunk was seen by the same extractor. */
function joinedVisual(parts: (VisualSignals | null)[]): VisualSignals | null {
  const seen = parts.filter((p) => p !== null);
  const first = seen[0];
  return first ? { ...first, samples: seen.flatMap((p) => p.samples) } : null;
}

/** Loudness is logarithmic: chunks combine by mean energy, weighted by their length. */
function combinedLufs(parts: { lufs: number | null; ms: number }[]): number | null {
  const measured = parts.filter((p): p is { lufs: number; ms: number } => p.lufs !== null);
  const total = measured.reduce((sum, p) => sum + p.ms, 0);
  if (!total) return null;
  const energy = measured.reduce((sum, p) => sum + 10 ** (p.lufs / 10) * p.ms, 0) / total;
  return 10 * Math.log10(energy);
}

/**
 * The signals of consecutive chunks as one source's signals, so whole-source answers
 * (summary, class, score, extracted fields) are given once, over everything analysed.
 */
export function mergeSignals(chunks: SourceSignals[]): SourceSignals {
  const ordered = [...chunks].sort((a, b) => a.window.startMs - b.window.startMs);
  const first = ordered[0];
  if (!first) throw new Error('No chunk signals to merge');
  const videos = ordered.map((c) => c.video).filter((v) => v !== null);
  const audios = ordered.map((c) => c.audio).filter((a) => a !== null);
  const transcripts = ordered.map((c) => c.transcript).filter((t) => t !== null);
  const lengthOf = (c: SourceSignals) => c.window.endMs - c.window.startMs;
  const longest = [...ordered].sort((a, b) => lengthOf(b) - lengthOf(a))[0]!;

  return {
    mediaKind: first.mediaKind,
    durationMs: first.durationMs,
    window: { startMs: first.window.startMs, endMs: ordered.at(-1)!.window.endMs },
    video: videos[0]
      ? {
          ...videos[0],
          sceneCuts: videos.flatMap((v) => v.sceneCuts),
          motion: videos.flatMap((v) => v.motion),
          black: joined(videos.map((v) => v.black)),
          frozen: joined(videos.map((v) => v.frozen)),
          // The longest chunk's picture speaks for the source.
          dominantColor: longest.video?.dominantColor ?? videos[0].dominantColor,
          visual: joinedVisual(videos.map((v) => v.visual)),
        }
      : null,
    audio: audios.length
      ? {
          loudness: audios.flatMap((a) => a.loudness),
          integratedLufs: combinedLufs(ordered.map((c) => ({ lufs: c.audio?.integratedLufs ?? null, ms: lengthOf(c) }))),
          loudPeaks: joinedLevels(audios.map((a) => a.loudPeaks)),
          silence: joined(audios.map((a) => a.silence)),
          speech: joined(audios.map((a) => a.speech)),
          music: joined(audios.map((a) => a.music)),
        }
      : null,
    transcript: transcripts.length ? transcripts.flat() : null,
  };
}
