import os from 'node:os';
import { lineScore, matchTerms, SAME_MEANING, type Meaning } from '../../functions/domain/engine/meaning.js';
import { readInstruction } from '../../functions/adapters/analyzers/vocabulary.js';
import { loadWinkMeaning } from '../../functions/adapters/meaning/wink-meaning.js';
import { loadWordVectors } from '../../functions/adapters/meaning/word-vectors.js';

/** Twelve transcript lines, and for each a query that names its topic in other words. */
const lines = [
  'The tickets cost forty dollars and the price keeps going up.',
  'It rained all weekend and the forecast says more storms.',
  'My doctor told me to rest and take the medicine twice a day.',
  'We drove the car across the country in three days.',
  'The team scored twice in the second half and won the match.',
  'She cooked pasta with garlic and tomatoes for dinner.',
  'I started a new job at the bank last month.',
  'Our flight to Paris was delayed at the airport.',
  'The kids played in the garden with the dog.',
  'He plays guitar in a band and writes songs.',
  'The election results were announced by the government.',
  'I bought a new laptop because my computer broke.',
];
const queries = [
  'Find where they talk about money',
  'Find where they discuss the weather',
  'Find where someone talks about health',
  'Find where they mention a road trip',
  'Find where they talk about football',
  'Find where they discuss food',
  'Find where they mention work',
  'Find where they talk about travel',
  'Find where they mention children and pets',
  'Find where they talk about music',
  'Find where they discuss politics',
  'Find where they mention technology',
];

const topicOf = (meaning: Meaning, query: string) => readInstruction(query, meaning.words(query)).topic;

/** The line a query finds: the best-scoring one, or none when nothing scores. */
function found(meaning: Meaning, query: string, threshold: 'exact' | 'meaning'): number | null {
  const topic = topicOf(meaning, query);
  const scores = lines.map((line) => {
    const words = meaning.words(line);
    return threshold === 'meaning' ? lineScore(meaning, topic, words) : topic.filter((t) => words.some((w) => w.content && w.lemma === t.lemma)).length;
  });
  const best = Math.max(...scores);
  return best > 0 ? scores.indexOf(best) : null;
}

/** Query-line pairs in which a topic word matches a said word at SAME_MEANING: its own line, and the 132 others (which should not match). */
function thresholdMatches(meaning: Meaning): { own: number; others: number } {
  const lineWords = lines.map((line) => meaning.words(line));
  const matched = queries.map((q) => lineWords.map((words) => matchTerms(meaning, topicOf(meaning, q), words).length > 0));
  return { own: matched.filter((row, i) => row[i]).length, others: matched.flatMap((row, i) => row.filter((m, j) => m && j !== i)).length };
}

/** `BENCH_ONLY=meaning npm run bench`: paraphrase hits for exact words vs meaning, and what the vector table costs. */
export async function benchMeaning(): Promise<object[]> {
  const before = process.memoryUsage().rss;
  let started = performance.now();
  const vectors = await loadWordVectors();
  const tableMs = performance.now() - started;
  const tableRssMb = (process.memoryUsage().rss - before) / 1e6;
  // Again, once the file is in the page cache and the code is compiled: what a warm process pays.
  started = performance.now();
  await loadWordVectors();
  const againMs = performance.now() - started;
  started = performance.now();
  const meaning = await loadWinkMeaning();
  const meaningMs = performance.now() - started;
  const hits = (how: 'exact' | 'meaning') => queries.filter((q, i) => found(meaning, q, how) === i).length;
  const matches = thresholdMatches(meaning);
  return [
    { figure: 'paraphrase hits, exact lemmas (of 12)', value: hits('exact') },
    { figure: 'paraphrase hits, meaning (of 12; target >= 10)', value: hits('meaning') },
    { figure: `lines whose words match their query's topic at SAME_MEANING ${SAME_MEANING} (of 12)`, value: matches.own },
    { figure: `other lines matched at SAME_MEANING (of ${queries.length * (lines.length - 1)})`, value: matches.others },
    { figure: `vector table load ms (${vectors.size} words x 100 int8; target < 200)`, value: Math.round(tableMs) },
    { figure: 'vector table load again ms', value: Math.round(againMs) },
    { figure: 'vector table RSS MB (target < 100)', value: Math.round(tableRssMb * 10) / 10 },
    { figure: 'NLP model + table load ms (once per process)', value: Math.round(meaningMs) },
    { figure: 'process RSS MB after both', value: Math.round(process.memoryUsage().rss / 1e6) },
    { figure: 'load average (1 min) while measured', value: os.loadavg()[0]!.toFixed(1) },
  ];
}
