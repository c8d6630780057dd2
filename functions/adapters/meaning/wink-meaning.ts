import type { ItsFunction } from 'wink-nlp';
import type { Meaning } from '../../domain/engine/meaning.js';
import { loadWordVectors } from './word-vectors.js';

const CONTENT = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'NUM', 'INTJ']);
/** The model's stop-word list holds nouns and verbs that carry topics ("call", "show"): it is applied to adverbs only ("then", "just"). */
const isContent = (pos: string, stop: boolean) => CONTENT.has(pos) || (pos === 'ADV' && !stop);

/**
 * The Meaning port on wink-nlp with its English lite model (MIT: lemmas, parts of speech,
 * negation scope) and the reduced GloVe table. Loaded once per process (~1 s, ~40 MB for the
 * model; the table ~60 ms and ~6 MB): callers share one promise. `wordVectorsDir`: see loadWordVectors.
 */
export async function loadWinkMeaning(wordVectorsDir?: string): Promise<Meaning> {
  const [{ default: winkNLP }, { default: model }, vectors] = await Promise.all([
    import('wink-nlp'),
    import('wink-eng-lite-web-model'),
    loadWordVectors(wordVectorsDir),
  ]);
  const nlp = winkNLP(model, ['pos', 'negation']);
  // Read as plain functions handed to `out`, never called here (wink-nlp types them as methods).
  const its = nlp.its as unknown as Record<'normal' | 'lemma' | 'negationFlag' | 'pos' | 'stopWordFlag', unknown>;
  return {
    words(text) {
      const tokens = nlp.readDoc(text).tokens();
      // wink-nlp's typings do not fit its own `its` helpers to `out`: each column is typed here.
      const column = <T>(its: unknown) => tokens.out(its as ItsFunction<T>) as T[];
      const [texts, lemmas, negated, pos, stop] = [
        column<string>(its.normal),
        column<string>(its.lemma),
        column<boolean>(its.negationFlag),
        column<string>(its.pos),
        column<boolean>(its.stopWordFlag),
      ];
      return texts.map((t, i) => ({
        text: t,
        lemma: lemmas[i]!.toLowerCase(),
        negated: negated[i]!,
        content: isContent(pos[i]!, stop[i]!) && /\p{L}|\p{N}/u.test(t),
      }));
    },
    similarity: (a, b) => vectors.similarity(a, b),
  };
}
