/**
 * Port: how the local analyzer reads words (DESIGN §7, issue 25). An adapter supplies lemmas,
 * negation and word similarity; this module decides, deterministically, which said words an
 * instruction's words stand for.
 */
export interface Word {
  text: string;
  lemma: string;
  /** Inside the scope of a negation ("no music", "without talking", "don't mention"). */
  negated: boolean;
  /** A noun, verb, adjective, adverb or name that is not a stop word: what can carry a topic. */
  content: boolean;
}

export interface Meaning {
  words(text: string): Word[];
  /** Cosine similarity of two words' vectors (-1..1); null when either has none. */
  similarity(a: string, b: string): number | null;
}

/**
 * Two words mean the same thing here from this cosine up. On the 100-d GloVe table without its
 * common direction (word-vectors.ts) money/cost is 0.41, money/dollars 0.47, money/paid 0.57,
 * music/song 0.68, while money/way and money/brother are 0.28, money/talk 0.18 and
 * money/weather -0.17: a lower bar lets a topic match the act of speaking about it.
 */
export const SAME_MEANING = 0.4;

/** How one instruction term was found in a line: `said` is the line's word, `similarity` 1 when the lemmas are equal. */
interface TermMatch {
  term: string;
  said: string;
  similarity: number;
}

/** 1 for the same lemma, else the closer of the lemmas' and the surface forms' vectors (0 when neither has one). */
const similarityOf = (meaning: Meaning, term: Word, word: Word) =>
  word.lemma === term.lemma ? 1 : Math.max(meaning.similarity(term.lemma, word.lemma) ?? 0, meaning.similarity(term.text, word.text) ?? 0);

/** The closest content word of a line for one term, or null. */
function closest(meaning: Meaning, term: Word, line: readonly Word[]): TermMatch | null {
  let best: TermMatch | null = null;
  for (const word of line) {
    if (!word.content) continue;
    const similarity = similarityOf(meaning, term, word);
    if (!best || similarity > best.similarity) best = { term: term.lemma, said: word.text, similarity };
  }
  return best;
}

/** Each term's closest word in the line, kept when it means the same (`threshold`; 1 = exact lemmas only). */
export function matchTerms(meaning: Meaning, terms: readonly Word[], line: readonly Word[], threshold = SAME_MEANING): TermMatch[] {
  return terms.flatMap((term) => {
    const match = closest(meaning, term, line);
    return match && match.similarity >= threshold ? [match] : [];
  });
}

/**
 * How well a line answers the terms (0..1), for ranking lines: per term, the mean of its two
 * closest words' similarities. A topic is usually carried by several related words ("cooked
 * pasta for dinner"), while a common verb ("take", "told") is close to many topics alone.
 */
export function lineScore(meaning: Meaning, terms: readonly Word[], line: readonly Word[]): number {
  if (!terms.length) return 0;
  const content = line.filter((w) => w.content);
  const termScore = (term: Word) => {
    const [first = 0, second = first] = content.map((w) => similarityOf(meaning, term, w)).sort((a, b) => b - a);
    return Math.max(0, (first + second) / 2);
  };
  return terms.reduce((sum, term) => sum + termScore(term), 0) / terms.length;
}
