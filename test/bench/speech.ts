/**
 * The local transcribers side by side (issue 25; figures in docs/local-analyzer.md): word error
 * rate on real read speech (Debian pocketsphinx-testdata's LibriVox utterances, with their
 * transcripts), on espeak-ng voices and on flite voices; CPU seconds per audio second (the
 * transcriber's process and its children: ffmpeg, pocketsphinx); model load time; peak RSS; and
 * word-onset error against flite's own phone timings. Each transcriber runs in a fresh process
 * of its own, so load time and peak memory are its alone. Each voice's 8 sentences are one
 * recording (1 s between sentences); the 5 LibriVox utterances are read as shipped. On a shared
 * machine the CPU figures are the steady ones; wall-clock load time moves with the load.
 *
 *   BENCH_ONLY=speech npm run bench
 *
 * Needs espeak-ng, flite, pocketsphinx, pocketsphinx-en-us and pocketsphinx-testdata (.ci/run).
 * WER compares lower-cased words without punctuation (normalisedWords: hyphens split words, "Mr."
 * is "mister"), so a recogniser is not charged for spelling a word as the transcript does not.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transcriber } from '../../functions/domain/engine/signals.js';
import { resolveFfmpegPath } from '../../functions/adapters/ffmpeg-binaries.js';
import { POCKETSPHINX_DEFAULTS } from '../../functions/config.js';
import { ffmpeg } from '../helpers/ground-truth-media.js';
import { normalisedWords, speak, wordErrors } from '../helpers/speech-media.js';
import { timed } from './signals.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SENTENCES = [
  'Welcome back to the show',
  'Today we talk about the weather tomorrow morning',
  'The quick brown fox jumps over the lazy dog',
  'Please call me when you get home tonight',
  'We will meet again next week at the office',
  'This is the most important moment of the game',
  'I can not believe how fast that car was going',
  'Thank you all for watching and see you next time',
];
const VOICES = { espeak: ['espeak:en-us:130', 'espeak:en-us', 'espeak:en-gb'], flite: ['flite:kal16', 'flite:slt', 'flite:rms', 'flite:awb'] };

interface Utterance {
  set: 'real' | 'espeak' | 'flite';
  path: string;
  reference: string;
  audioSeconds: number;
  onsets: { text: string; startMs: number }[] | null;
}

/** The transcribers a worker can build, by name: the adapters the local host runs. */
const CONFIGS = {
  'moonshine (aligned)': 'moonshine',
  'moonshine (spread by length)': 'moonshine',
  pocketsphinx: 'pocketsphinx',
} as const;
type ConfigName = keyof typeof CONFIGS;

async function transcriberFor(name: ConfigName): Promise<{ transcriber: Transcriber; warmUp: () => Promise<unknown> }> {
  const ffmpegPath = resolveFfmpegPath(process.env.FFMPEG_PATH);
  if (CONFIGS[name] === 'pocketsphinx') {
    const { pocketsphinxTranscriber } = await import('../../functions/adapters/transcribers/pocketsphinx.js');
    // A CLI per call: nothing to load ahead.
    return {
      transcriber: pocketsphinxTranscriber({ ffmpegPath, binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: POCKETSPHINX_DEFAULTS.modelDir }),
      warmUp: () => Promise.resolve(),
    };
  }
  const [{ moonshineTranscriber }, { resolveSpeechModelFiles, speechModels }, { pocketsphinxAligner }] = await Promise.all([
    import('../../functions/adapters/transcribers/moonshine.js'),
    import('../../functions/adapters/transcribers/moonshine-model.js'),
    import('../../functions/adapters/transcribers/word-timing.js'),
  ]);
  const models = resolveSpeechModelFiles();
  const aligner =
    name === 'moonshine (aligned)' ? pocketsphinxAligner({ binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: POCKETSPHINX_DEFAULTS.modelDir }) : null;
  return { transcriber: moonshineTranscriber({ ffmpegPath, models, aligner }), warmUp: () => speechModels(models) };
}

/** One transcriber over every utterance, in this (fresh) process: what the parent tabulates. */
async function worker(name: ConfigName, manifest: string): Promise<void> {
  const utterances = JSON.parse(readFileSync(manifest, 'utf8')) as Utterance[];
  const { transcriber, warmUp } = await transcriberFor(name);
  const load = await timed(warmUp);
  const results = [];
  for (const u of utterances) {
    let words: { text: string; startMs: number }[] = [];
    const cost = await timed(async () => {
      const segments = (await transcriber.transcribe({ url: u.path, objectKey: '', window: { startMs: 0, endMs: 600_000 } })) ?? [];
      words = segments.flatMap((s) => s.words);
    });
    results.push({ set: u.set, words, cpu: cost.cpu ?? NaN, reference: u.reference, audioSeconds: u.audioSeconds, onsets: u.onsets });
  }
  console.log(JSON.stringify({ loadSeconds: load.wall, loadCpuSeconds: load.cpu ?? NaN, peakRssMb: process.resourceUsage().maxRSS / 1024, results }));
}

/** Onset errors of the words heard that match the spoken ones, in order (a word heard wrong has no onset to compare). */
function onsetErrors(heard: { text: string; startMs: number }[], spoken: { text: string; startMs: number }[]): number[] {
  const errors: number[] = [];
  let from = 0;
  for (const word of spoken) {
    const key = normalisedWords(word.text).join(' ');
    const at = heard.findIndex((h, i) => i >= from && i < from + 3 && normalisedWords(h.text).join(' ') === key);
    if (at < 0) continue;
    errors.push(Math.abs(heard[at]!.startMs - word.startMs));
    from = at + 1;
  }
  return errors;
}

const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]! : NaN);
const percent = (errors: number, words: number) => `${((100 * errors) / words).toFixed(1)}%`;

/** Every utterance of the three sets, spoken (or found) in `dir`. */
async function utterances(dir: string): Promise<Utterance[]> {
  const seconds = (path: string) => (readFileSync(path).length - 44) / 32_000;
  const real: Utterance[] = existsSync(LIBRIVOX)
    ? readFileSync(join(LIBRIVOX, 'transcription'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [, text = '', id = ''] = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim()) ?? [];
          const path = join(LIBRIVOX, `${id}.wav`);
          return { set: 'real', path, reference: text, audioSeconds: seconds(path), onsets: null };
        })
    : [];
  // Per voice, its sentences as one recording with 1 s between them (each spoken with 0.5 s of
  // silence at its ends): one transcription per voice, as a talk reaches the transcriber.
  const synthetic: Utterance[] = [];
  for (const [set, voices] of Object.entries(VOICES) as ['espeak' | 'flite', string[]][]) {
    for (const voice of voices) {
      const stem = join(dir, voice.replaceAll(':', '-'));
      const spoken = [];
      for (const [i, sentence] of SENTENCES.entries()) spoken.push(await speak(voice, sentence, `${stem}-${i}.wav`, 500));
      const path = `${stem}.wav`;
      await ffmpeg([
        ...spoken.flatMap((s) => ['-i', s.path]),
        '-filter_complex',
        `${spoken.map((_, i) => `[${i}]`).join('')}concat=n=${spoken.length}:v=0:a=1`,
        '-c:a',
        'pcm_s16le',
        path,
      ]);
      let offsetMs = 0;
      const onsets = spoken.flatMap((s) => {
        const shifted = (s.onsets ?? []).map((o) => ({ text: o.text, startMs: o.startMs + offsetMs }));
        offsetMs += seconds(s.path) * 1000;
        return shifted;
      });
      synthetic.push({ set, path, reference: SENTENCES.join(' '), audioSeconds: seconds(path), onsets: set === 'flite' ? onsets : null });
    }
  }
  return [...real, ...synthetic];
}

export async function benchSpeech(): Promise<object[]> {
  const dir = await mkdtemp(join(tmpdir(), 'speech-bench-'));
  try {
    const manifest = join(dir, 'utterances.json');
    await writeFile(manifest, JSON.stringify(await utterances(dir)));
    // Side by side in parallel: on a shared machine they get their share of it sooner, and CPU time, load and RSS are each process's own.
    const runs = await Promise.all(
      (Object.keys(CONFIGS) as ConfigName[]).map(async (name) => {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--worker', name, manifest], {
          maxBuffer: 64 * 1024 * 1024,
        });
        return { name, stdout };
      }),
    );
    return runs.map(({ name, stdout }) => {
      const { loadSeconds, loadCpuSeconds, peakRssMb, results } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
        loadSeconds: number;
        loadCpuSeconds: number;
        peakRssMb: number;
        results: (Utterance & { words: { text: string; startMs: number }[]; cpu: number })[];
      };
      const werOf = (set: Utterance['set']) => {
        const of = results.filter((r) => r.set === set);
        const errors = of.reduce((sum, r) => sum + wordErrors(normalisedWords(r.reference), normalisedWords(r.words.map((w) => w.text).join(' '))), 0);
        return of.length
          ? percent(
              errors,
              of.reduce((sum, r) => sum + normalisedWords(r.reference).length, 0),
            )
          : 'n/a';
      };
      const onsets = results.flatMap((r) => (r.onsets ? onsetErrors(r.words, r.onsets) : []));
      return {
        transcriber: name,
        'WER real (LibriVox)': werOf('real'),
        'WER espeak-ng': werOf('espeak'),
        'WER flite': werOf('flite'),
        'CPU-s per audio-s': Number((results.reduce((s, r) => s + r.cpu, 0) / results.reduce((s, r) => s + r.audioSeconds, 0)).toFixed(3)),
        'load s (wall)': Number(loadSeconds.toFixed(2)),
        'load CPU-s': Number(loadCpuSeconds.toFixed(2)),
        'peak RSS MB': Math.round(peakRssMb),
        'median onset error ms (flite)': median(onsets),
        'onsets within 50 ms': percent(onsets.filter((e) => e <= 50).length, onsets.length),
      };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--worker') await worker(process.argv[3] as ConfigName, process.argv[4]!);
