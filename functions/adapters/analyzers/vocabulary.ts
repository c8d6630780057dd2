import type { SourceSignals, Span } from '../../domain/analysis/signals.js';

/**
 * The local analyzer's vocabulary (docs/local-analyzer.md): the signal concepts it can ground
 * an instruction in. Anything outside it (and outside the transcript) is unsupported.
 */
export type ConceptName = 'scene_change' | 'motion' | 'static' | 'black' | 'frozen' | 'silence' | 'loud' | 'speech' | 'music';

/** One occurrence of a concept: where, and how strongly (0..1). */
export interface Occurrence extends Span {
  strength: number;
  /** The signals this occurrence rests on, when they differ from its grounding's. */
  signals?: string[];
}

/** One way a text is grounded in a source: a label (a concept, `transcript` or a chat moment type) and where it occurs. */
export interface Grounding {
  label: string;
  signals: string[];
  occurrences: Occurrence[];
  /** Whether the transcript (not only an audio/visual signal) grounded it. */
  fromTranscript: boolean;
}

export interface Concept {
  name: ConceptName;
  /** Words that name it (matched whole-word, case-insensitive). */
  words: RegExp;
  /** The signal names cited in evidence.signals. */
  signals: string[];
  /** Where the concept occurs in the measured signals; null when the source has no such signal. */
  occurrences(signals: SourceSignals): Occurrence[] | null;
}

const spans = (list: Span[] | undefined, strength: (s: Span) => number): Occurrence[] | null =>
  list ? list.map((s) => ({ startMs: s.startMs, endMs: s.endMs, strength: strength(s) })) : null;

/** Longer spans are stronger evidence, saturating at ten seconds. */
const byLength = (s: Span) => Math.min(1, (s.endMs - s.startMs) / 10_000);

export const concepts: Concept[] = [
  {
    name: 'scene_change',
    words: /\b(scene\s*(change|changes|cut|cuts)|cuts?|transitions?|shot\s*changes?|scene\s*switch(es)?)\b/i,
    signals: ['scene_cuts'],
    // Each cut opens a scene that lasts until the next cut, or the end of what was analysed (a
    // chunk's scene never claims the rest of the source: the next chunk sees its own cuts).
    occurrences: (s) =>
      s.video?.sceneCuts.map((c, i, cuts) => ({ startMs: c.atMs, endMs: cuts[i + 1]?.atMs ?? s.window.endMs, strength: Math.min(1, c.score) })) ?? null,
  },
  {
    name: 'motion',
    words: /\b(motion|action|busy|movement|moving|fast[-\s]?paced|active)\b/i,
    signals: ['motion'],
    occurrences: (s) => s.video?.motion.filter((m) => m.level >= 0.5).map((m) => ({ startMs: m.startMs, endMs: m.endMs, strength: m.level })) ?? null,
  },
  {
    name: 'static',
    words: /\b(static|still|calm|stationary|motionless)\b/i,
    signals: ['motion'],
    occurrences: (s) => s.video?.motion.filter((m) => m.level <= 0.1).map((m) => ({ startMs: m.startMs, endMs: m.endMs, strength: 1 - m.level })) ?? null,
  },
  {
    name: 'black',
    words: /\b(black|blank|fade\s*to\s*black|dark\s*screen|blackout)\b/i,
    signals: ['black'],
    occurrences: (s) => spans(s.video?.black, byLength),
  },
  {
    name: 'frozen',
    words: /\b(frozen|freezes?|freezing|stuck|still\s*frame)\b/i,
    signals: ['frozen'],
    occurrences: (s) => spans(s.video?.frozen, byLength),
  },
  {
    name: 'silence',
    words: /\b(silence|silent|quiet|pauses?|dead\s*air)\b/i,
    signals: ['silence'],
    occurrences: (s) => spans(s.audio?.silence, byLength),
  },
  {
    name: 'loud',
    words: /\b(loud|louder|loudest|peaks?|bursts?|bangs?|spikes?)\b/i,
    signals: ['loudness'],
    occurrences: (s) => s.audio?.loudPeaks.map((p) => ({ startMs: p.startMs, endMs: p.endMs, strength: p.level })) ?? null,
  },
  {
    name: 'speech',
    words: /\b(speech|talk|talking|speaking|speaks?|voices?|dialogue|conversation|spoken)\b/i,
    signals: ['speech_activity'],
    occurrences: (s) => spans(s.audio?.speech, byLength),
  },
  {
    name: 'music',
    words: /\b(music|musical|tones?|songs?|melody|melodies)\b/i,
    signals: ['music_tone'],
    occurrences: (s) => spans(s.audio?.music, byLength),
  },
];

/** The concepts a text names, in vocabulary order. */
export const conceptsIn = (text: string): Concept[] => concepts.filter((c) => c.words.test(text));

const STOPWORDS = new Set(
  'the a an and or of to in on at for with from by is are was were be been any all some this that these those there their when where what which who whom how find show me moments moment each every whether does did do has have had it its into about more most less very than then them they clip clips video audio recording source part parts times time'.split(
    ' ',
  ),
);

/** Content words of an instruction that are not vocabulary words: candidates for transcript matching. */
export function transcriptTerms(text: string): string[] {
  const conceptWords = concepts.map((c) => c.words);
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}']{3,}/gu) ?? [])].filter(
    (word) => !STOPWORDS.has(word) && !conceptWords.some((re) => re.test(word)),
  );
}
