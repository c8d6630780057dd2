import type { Word } from '../../domain/engine/meaning.js';
import type { SourceSignals, Span } from '../../domain/engine/signals.js';

/**
 * The local analyzer's vocabulary (docs/local-analyzer.md): the signal concepts it can ground
 * an instruction in. Anything outside it (and outside the transcript) is unsupported.
 */
type ConceptName = 'scene_change' | 'motion' | 'static' | 'black' | 'frozen' | 'silence' | 'loud' | 'speech' | 'music';

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

interface Concept {
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
export const byLength = (s: Span) => Math.min(1, (s.endMs - s.startMs) / 10_000);

const concepts: Concept[] = [
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

/** Instruction filler that is never a topic, beyond the NLP model's own stop words. */
const FILLER = new Set(
  'find show moment clip video audio recording source part time where when someone anyone anybody everyone people person speaker they'.split(' '),
);

/**
 * Lemmas that ask about what is said (DESIGN §11: only such a question can be settled, either
 * way, by a transcript). The content words after one are its topic.
 */
const SAYING = new Set([
  'say',
  'mention',
  'talk',
  'speak',
  'discuss',
  'discussion',
  'conversation',
  'ask',
  'tell',
  'quote',
  'word',
  'phrase',
  'topic',
  'subject',
  'refer',
  'announce',
]);

/** An instruction read for grounding: the part that names signal concepts, and the topic of what is said. */
interface Reading {
  /** The text before the saying word (all of it when nothing is asked about what is said). */
  signalText: string;
  signalWords: Word[];
  /** What must be said; empty when the instruction is not about what is said. */
  topic: Word[];
  /** "don't mention prices": the topic's absence is asked for. */
  negated: boolean;
}

export function readInstruction(text: string, words: Word[]): Reading {
  const at = words.findIndex((w) => SAYING.has(w.lemma));
  const topic = at < 0 ? [] : words.slice(at + 1).filter((w) => w.content && !SAYING.has(w.lemma) && !FILLER.has(w.lemma));
  // "Is anyone talking?" names no topic: it asks about speech, a signal concept.
  if (!topic.length) return { signalText: text, signalWords: words, topic, negated: false };
  const saying = words[at]!;
  const cut = text.toLowerCase().search(new RegExp(`\\b${saying.text.replace(/\W/g, '\\$&')}`));
  return { signalText: text.slice(0, Math.max(0, cut)), signalWords: words.slice(0, at), topic, negated: saying.negated || topic.some((w) => w.negated) };
}

/** Whether a classifier's labels name topics of what is said ("What do they talk about?", "Which topic is discussed?"). */
export const asksForTopic = (words: Word[]): boolean =>
  words.some((w, i) => SAYING.has(w.lemma) && (w.lemma === 'topic' || w.lemma === 'subject' || ['about', 'of', 'on'].includes(words[i + 1]?.lemma ?? '')));
