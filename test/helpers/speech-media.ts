/**
 * Speech with known words and word onsets, for transcriber tests and the speech bench: Debian's
 * espeak-ng and flite speak a text to a WAV, padded with silence; flite also says where each
 * word starts (from its own phone timings). And word error rate, as the bench reports it.
 */
import { spawnSync } from 'node:child_process';
import { ffmpeg } from './ground-truth-media.js';

export const espeakInstalled = spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).status === 0;
export const fliteInstalled = spawnSync('flite', ['-lv'], { stdio: 'ignore' }).status === 0;

export interface SpokenText {
  path: string;
  /** Milliseconds from the start of the file to where each word begins (flite only). */
  onsets: { text: string; startMs: number }[] | null;
}

function run(binary: string, args: string[]): string {
  const result = spawnSync(binary, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${binary} failed: ${result.stderr}`);
  return result.stdout;
}

/** flite's phones with their end times in seconds (`-psdur`: `pau:0.220 w:0.275 ...`). */
function flitePhones(voice: string, text: string): { phone: string; endS: number }[] {
  return run('flite', ['-voice', voice, '-psdur', '-t', text, 'none'])
    .trim()
    .split(/\s+/)
    .map((item) => {
      const [phone = '', end = '0'] = item.split(':');
      return { phone, endS: Number(end) };
    });
}

/**
 * Where each word starts in flite's rendering of `text`: flite speaks each prefix of the text
 * alone, and the number of phones in prefix k (without its pauses at the ends) is the index of
 * word k+1's first phone in the whole sentence's phones.
 */
function fliteOnsets(voice: string, text: string, offsetMs: number): { text: string; startMs: number }[] {
  const phones = flitePhones(voice, text);
  const words = text.split(/\s+/);
  return words.map((word, k) => {
    const prefix =
      k === 0 ? 0 : flitePhones(voice, words.slice(0, k).join(' ')).filter((p, i, all) => !(p.phone === 'pau' && (i === 0 || i === all.length - 1))).length;
    // Phone `prefix + 1` (after the leading pause) is the word's first: it starts where the one before it ends.
    return { text: word, startMs: offsetMs + Math.round(phones[prefix]!.endS * 1000) };
  });
}

/**
 * `text` spoken to `path` (16-bit WAV), with `padMs` of silence before and after. `voice`:
 * `espeak:<voice>[:<wpm>]` or `flite:<voice>` (kal16, slt, rms, awb...).
 */
export async function speak(voice: string, text: string, path: string, padMs = 1_000): Promise<SpokenText> {
  const [engine, name = '', wpm] = voice.split(':');
  const raw = `${path}.raw.wav`;
  if (engine === 'espeak') run('espeak-ng', ['-v', name, ...(wpm ? ['-s', wpm] : []), '-w', raw, text]);
  else run('flite', ['-voice', name, '-t', text, '-o', raw]);
  // ffmpeg 4.1's apad counts samples: resampled to 16 kHz first.
  await ffmpeg(['-i', raw, '-af', `aresample=16000,adelay=${padMs},apad=pad_len=${padMs * 16}`, '-ac', '1', '-c:a', 'pcm_s16le', '-y', path]);
  return { path, onsets: engine === 'flite' ? fliteOnsets(name, text, padMs) : null };
}

/** Lower-cased words without punctuation; hyphens split words, and the titles a recogniser abbreviates are spelled out. */
export function normalisedWords(text: string): string[] {
  const spelled: Record<string, string> = { mr: 'mister', mrs: 'missus', dr: 'doctor', st: 'saint' };
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => spelled[w] ?? w);
}

/** Substitutions + deletions + insertions of the best alignment of two word lists. */
export function wordErrors(reference: readonly string[], hypothesis: readonly string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[hypothesis.length]!;
}
