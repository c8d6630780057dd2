/**
 * pocketsphinx's word error rate on synthetic speech (README "Captions"): espeak-ng speaks each
 * sentence to a WAV, the pocketsphinx transcriber (the adapter the local host runs: ffmpeg to
 * 16 kHz mono, then pocketsphinx_continuous with Debian's US English model) transcribes it, and
 * the words are aligned with the reference (Levenshtein over lower-cased words without
 * punctuation). Needs pocketsphinx, pocketsphinx-en-us and espeak-ng.
 *
 *   npx tsx test/bench/pocketsphinx-wer.ts
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegPath } from '../../functions/adapters/ffmpeg-binaries.js';
import { pocketsphinxTranscriber } from '../../functions/adapters/transcribers/pocketsphinx.js';
import { POCKETSPHINX_DEFAULTS } from '../../functions/config.js';

const SENTENCES = [
  'Welcome back to the show.',
  'Today we talk about the weather tomorrow morning.',
  'The quick brown fox jumps over the lazy dog.',
  'Please call me when you get home tonight.',
  'We will meet again next week at the office.',
  'This is the most important moment of the game.',
  'I can not believe how fast that car was going.',
  'Thank you all for watching and see you next time.',
];
const VOICES = [
  { name: 'en-us, 130 wpm', args: ['-v', 'en-us', '-s', '130'] },
  { name: 'en-us, 175 wpm (espeak default)', args: ['-v', 'en-us'] },
];

/** A 16-bit mono WAV's duration (espeak-ng writes a plain 44-byte header). */
const seconds = (wav: string) => (statSync(wav).size - 44) / 2 / 22_050;

const words = (text: string) => text.toLowerCase().replace(/[^a-z' ]/g, ' ').split(/\s+/).filter(Boolean);

/** Substitutions + deletions + insertions of the best alignment. */
function editDistance(reference: string[], hypothesis: string[]): number {
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

const transcriber = pocketsphinxTranscriber({ ffmpegPath: resolveFfmpegPath(process.env.FFMPEG_PATH), binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: POCKETSPHINX_DEFAULTS.modelDir });
const dir = await mkdtemp(join(tmpdir(), 'pocketsphinx-wer-'));
try {
  for (const voice of VOICES) {
    let errors = 0;
    let total = 0;
    const started = Date.now();
    for (const [i, sentence] of SENTENCES.entries()) {
      const raw = join(dir, `${i}-raw.wav`);
      const wav = join(dir, `${i}.wav`);
      const spoken = spawnSync('espeak-ng', [...voice.args, '-w', raw, sentence]);
      if (spoken.status !== 0) throw new Error(`espeak-ng failed: ${spoken.stderr.toString()}`);
      // 1 s of silence before and after, as speech in a recording has.
      const padded = spawnSync(resolveFfmpegPath(process.env.FFMPEG_PATH), ['-v', 'error', '-y', '-i', raw, '-af', 'adelay=1000|1000,apad', '-t', String(seconds(raw) + 2), wav]);
      if (padded.status !== 0) throw new Error(`ffmpeg failed: ${padded.stderr.toString()}`);
      const segments = (await transcriber.transcribe({ url: wav, objectKey: '', window: { startMs: 0, endMs: 60_000 } })) ?? [];
      const heard = segments.flatMap((s) => s.words.map((w) => w.text));
      const reference = words(sentence);
      const distance = editDistance(reference, words(heard.join(' ')));
      errors += distance;
      total += reference.length;
      console.log(`  ${sentence}\n    heard: ${heard.join(' ')}  (${distance}/${reference.length})`);
    }
    console.log(`${voice.name}, each sentence alone: WER ${((100 * errors) / total).toFixed(1)}% (${errors} errors in ${total} words), ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    // All sentences as one recording (espeak-ng pauses between them), as a talk reaches the
    // transcriber: pocketsphinx adapts its cepstral mean normalisation as it goes.
    const raw = join(dir, 'all-raw.wav');
    const wav = join(dir, 'all.wav');
    spawnSync('espeak-ng', [...voice.args, '-w', raw, SENTENCES.join(' ')]);
    spawnSync(resolveFfmpegPath(process.env.FFMPEG_PATH), ['-v', 'error', '-y', '-i', raw, '-af', 'adelay=1000|1000,apad', '-t', String(seconds(raw) + 2), wav]);
    const transcribing = Date.now();
    const segments = (await transcriber.transcribe({ url: wav, objectKey: '', window: { startMs: 0, endMs: 600_000 } })) ?? [];
    const elapsed = (Date.now() - transcribing) / 1000;
    const heard = segments.flatMap((s) => s.words.map((w) => w.text));
    const reference = words(SENTENCES.join(' '));
    const distance = editDistance(reference, words(heard.join(' ')));
    console.log(`  heard: ${heard.join(' ')}`);
    console.log(`${voice.name}, one recording: WER ${((100 * distance) / reference.length).toFixed(1)}% (${distance} errors in ${reference.length} words); ${(seconds(raw) + 2).toFixed(1)} s of audio transcribed in ${elapsed.toFixed(1)} s\n`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
