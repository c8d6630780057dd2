import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pocketsphinxModelFiles } from '../../config.js';
import type { Span, TranscriptWord } from '../../domain/engine/signals.js';
import { once } from '../../shared/memo.js';
import { runTool } from '../signals/ffmpeg-process.js';
import { parsePocketsphinxOutput } from './pocketsphinx.js';
import { TranscriptionFailed } from './errors.js';
import { MAX_TOOL_OUTPUT_BYTES } from './window-wav.js';

/**
 * Word times for a recogniser that gives none (Moonshine): the recognised words of one segment
 * placed on its audio. Times are milliseconds from the start of the segment's audio.
 */
export type WordAligner = (input: {
  words: readonly string[];
  wav: Buffer;
  durationMs: number;
  workDir: string;
  timeoutMs: number;
}) => Promise<TranscriptWord[]>;

const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** A recognised word as a transcript word: punctuation at its edges trimmed off (the segment's text keeps it). */
export const bareWord = (word: string) => word.replace(EDGE_PUNCTUATION, '');

/**
 * The fallback without an aligner: each word gets a share of the span in proportion to its
 * letters plus one (the gap after it). Onsets land ~100 ms from the truth on read speech
 * (docs/local-analyzer.md), enough to cut a moment, too coarse for word-by-word captions.
 */
export function spreadByLength(words: readonly string[], span: Span): TranscriptWord[] {
  const weights = words.map((w) => w.length + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const msPerUnit = (span.endMs - span.startMs) / Math.max(total, 1);
  let at = span.startMs;
  return words.map((text, i) => {
    const startMs = at;
    at += weights[i]! * msPerUnit;
    // The share's last unit is the gap after the word.
    return { text, startMs: Math.round(startMs), endMs: Math.round(at - (i < words.length - 1 ? msPerUnit : 0)) };
  });
}

/**
 * Times for every word from those of some (the aligned ones): each run of words without times
 * is spread by length between its neighbours' times (or the span's edges).
 */
export function fillByLength(words: readonly string[], timed: readonly (Span | null)[], span: Span): TranscriptWord[] {
  const result: TranscriptWord[] = [];
  for (let i = 0; i < words.length; ) {
    const known = timed[i];
    if (known) {
      result.push({ text: words[i]!, startMs: known.startMs, endMs: known.endMs });
      i++;
      continue;
    }
    let end = i;
    while (end < words.length && !timed[end]) end++;
    const gap = { startMs: result.at(-1)?.endMs ?? span.startMs, endMs: timed[end]?.startMs ?? span.endMs };
    result.push(...spreadByLength(words.slice(i, end), gap));
    i = end;
  }
  return result;
}

/** A 44-byte PCM WAV header for 16 kHz mono 16-bit samples (what pocketsphinx reads). */
export function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** The pronunciation dictionary by word (a word's variants `word(2)` under `word`), read once per process. */
const dictionaries = new Map<string, () => Promise<Map<string, string[]>>>();
function dictionary(path: string): Promise<Map<string, string[]>> {
  let read = dictionaries.get(path);
  if (!read) {
    read = once(async () => {
      const entries = new Map<string, string[]>();
      for (const line of (await readFile(path, 'utf8')).split('\n')) {
        const word = line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '');
        if (word) entries.set(word, [...(entries.get(word) ?? []), line]);
      }
      return entries;
    });
    dictionaries.set(path, read);
  }
  return read();
}

/**
 * Forced alignment with pocketsphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`): a JSGF
 * grammar that accepts exactly the recognised words, in order, so the recogniser only decides
 * where each one starts and ends (11 ms median onset error on flite speech, STACK.md). Words
 * its dictionary lacks (numbers, names) are left out of the grammar and spread by length
 * between their neighbours; a segment it cannot align at all is spread whole.
 */
export function pocketsphinxAligner(options: { binaryPath: string; modelDir: string }): WordAligner {
  const model = pocketsphinxModelFiles(options.modelDir);
  return async ({ words, wav, durationMs, workDir, timeoutMs }) => {
    const span = { startMs: 0, endMs: durationMs };
    const lexicon = await dictionary(model.dictionary);
    // A hyphenated word (cold-hearted) is aligned as its parts when the dictionary has them all.
    const parts = words.map((w) => {
      const split = w.toLowerCase().split('-');
      return split.every((p) => lexicon.has(p)) ? split : null;
    });
    const inGrammar = parts.flatMap((p) => p ?? []);
    if (!inGrammar.length) return spreadByLength(words, span);
    const base = join(workDir, `align-${Math.random().toString(36).slice(2)}`);
    await Promise.all([
      writeFile(`${base}.wav`, wav),
      writeFile(`${base}.gram`, `#JSGF V1.0;\ngrammar words;\npublic <words> = ${inGrammar.join(' ')} ;\n`),
      writeFile(`${base}.dict`, `${[...new Set(inGrammar)].flatMap((k) => lexicon.get(k)!).join('\n')}\n`),
    ]);
    const args = [
      ...['-infile', `${base}.wav`, '-time', 'yes', '-samprate', '16000'],
      ...['-hmm', model.acousticModel, '-jsgf', `${base}.gram`, '-dict', `${base}.dict`, '-logfn', '/dev/null'],
    ];
    const run = await runTool(options.binaryPath, args, { timeoutMs, maxOutputBytes: MAX_TOOL_OUTPUT_BYTES }).catch((error: unknown) => {
      throw new TranscriptionFailed(`pocketsphinx (word alignment) did not run: ${(error as Error).message}`, { cause: error });
    });
    const aligned = run.exitCode === 0 ? parsePocketsphinxOutput(run.stdout, span).flatMap((s) => s.words) : [];
    // No full path through the grammar (the words do not fit the sound): no times to trust.
    if (aligned.length !== inGrammar.length) return spreadByLength(words, span);
    let next = 0;
    const timed = parts.map((p) => {
      if (!p) return null;
      const first = aligned[next]!;
      next += p.length;
      return { startMs: first.startMs, endMs: aligned[next - 1]!.endMs };
    });
    return fillByLength(words, timed, span);
  };
}
