/**
 * The moonshine transcriber on real audio: generated speech (espeak-ng, flite) comes back as the
 * spoken words, timed within tolerance of flite's own phone timings; noise, tones and silence
 * come back without words. Word alignment needs Debian pocketsphinx; the voices need espeak-ng
 * and flite (CI installs all three: .ci/run).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POCKETSPHINX_DEFAULTS, pocketsphinxInstalled } from '../../../../functions/config.js';
import { resolveSpeechModelFiles } from '../../../../functions/adapters/transcribers/moonshine-model.js';
import { moonshineTranscriber } from '../../../../functions/adapters/transcribers/moonshine.js';
import { pocketsphinxAligner } from '../../../../functions/adapters/transcribers/word-timing.js';
import { TranscriptionFailed } from '../../../../functions/adapters/transcribers/errors.js';
import { ffmpeg, ffmpegPath } from '../../../helpers/ground-truth-media.js';
import { espeakInstalled, fliteInstalled, normalisedWords, speak, wordErrors, type SpokenText } from '../../../helpers/speech-media.js';

const aligned = pocketsphinxInstalled(POCKETSPHINX_DEFAULTS.bin, POCKETSPHINX_DEFAULTS.modelDir);
const SENTENCE = 'Please call me when you get home tonight and bring the documents';
const WINDOW = { startMs: 0, endMs: 60_000 };
const transcriberWith = (aligner: boolean) =>
  moonshineTranscriber({
    ffmpegPath: ffmpegPath(),
    models: resolveSpeechModelFiles(),
    aligner: aligner ? pocketsphinxAligner({ binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: POCKETSPHINX_DEFAULTS.modelDir }) : null,
  });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'moonshine-test-'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe.skipIf(!espeakInstalled)('moonshine transcriber: words (needs espeak-ng)', () => {
  it('hears what espeak-ng says, in one segment over the spoken span, in source time', async () => {
    const { path } = await speak('espeak:en-us:150', SENTENCE, join(workDir, 'espeak.wav'), 2_000);
    const segments = (await transcriberWith(aligned).transcribe({ url: path, objectKey: 'unused', window: { startMs: 1_000, endMs: 30_000 } }))!;
    const heard = segments.flatMap((s) => s.words.map((w) => w.text));
    // At most 2 of its 12 words wrong: espeak-ng's robotic voice is the hard case (10-18% WER, docs/local-analyzer.md).
    expect(wordErrors(normalisedWords(SENTENCE), normalisedWords(heard.join(' ')))).toBeLessThanOrEqual(2);
    expect(segments[0]!.text).toMatch(/^Please call me/);
    for (const segment of segments) {
      // The speech starts 2 s into the file, 1 s into the window: times are the source's.
      expect(segment.startMs).toBeGreaterThan(1_700);
      expect(segment.speaker).toBeNull();
      for (const w of segment.words) {
        expect(w.startMs).toBeGreaterThanOrEqual(segment.startMs);
        expect(w.endMs).toBeLessThanOrEqual(segment.endMs);
      }
    }
  }, 120_000);

  it('no words in noise, tones, music-like chords or silence', async () => {
    const path = join(workDir, 'no-speech.wav');
    await ffmpeg([
      ...['-f', 'lavfi', '-i', 'anoisesrc=d=4:c=pink:a=0.3:r=16000'],
      ...['-f', 'lavfi', '-i', 'sine=f=440:d=4:r=16000'],
      ...['-f', 'lavfi', '-i', 'aevalsrc=0.2*sin(2*PI*261.6*t)+0.2*sin(2*PI*329.6*t)+0.2*sin(2*PI*392*t)*(0.6+0.4*sin(2*PI*5*t)):d=4:s=16000'],
      ...['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '16'],
      ...['-filter_complex', '[0][1][2][3]concat=n=4:v=0:a=1', '-c:a', 'pcm_s16le', path],
    ]);
    await expect(transcriberWith(aligned).transcribe({ url: path, objectKey: 'unused', window: WINDOW })).resolves.toEqual([]);
  }, 120_000);

  it('a model file that is not there: TranscriptionFailed', async () => {
    const { path } = await speak('espeak:en-us', 'hello there', join(workDir, 'short.wav'));
    const broken = moonshineTranscriber({ ffmpegPath: ffmpegPath(), models: resolveSpeechModelFiles(workDir), aligner: null });
    await expect(broken.transcribe({ url: path, objectKey: 'unused', window: WINDOW })).rejects.toBeInstanceOf(TranscriptionFailed);
  }, 60_000);
});

describe.skipIf(!fliteInstalled)('moonshine transcriber: word times against flite (needs flite)', () => {
  let spoken: SpokenText;
  beforeAll(async () => {
    spoken = await speak('flite:slt', SENTENCE, join(workDir, 'flite.wav'));
  }, 60_000);

  const onsetErrors = (words: { text: string; startMs: number }[]) => {
    expect(words.map((w) => w.text.toLowerCase())).toEqual(spoken.onsets!.map((w) => w.text.toLowerCase()));
    return words.map((w, i) => Math.abs(w.startMs - spoken.onsets![i]!.startMs));
  };

  it.skipIf(!aligned)(
    'aligned by pocketsphinx: median onset error within 50 ms, every word within 150 ms',
    async () => {
      const segments = (await transcriberWith(true).transcribe({ url: spoken.path, objectKey: 'unused', window: WINDOW }))!;
      const errors = onsetErrors(segments.flatMap((s) => s.words));
      expect(median(errors)).toBeLessThanOrEqual(50);
      expect(Math.max(...errors)).toBeLessThanOrEqual(150);
    },
    120_000,
  );

  it('without pocketsphinx, spread by length: in order, inside the spoken span, median onset error within 250 ms', async () => {
    const segments = (await transcriberWith(false).transcribe({ url: spoken.path, objectKey: 'unused', window: WINDOW }))!;
    const words = segments.flatMap((s) => s.words);
    expect(median(onsetErrors(words))).toBeLessThanOrEqual(250);
    words.slice(1).forEach((w, i) => expect(w.startMs).toBeGreaterThan(words[i]!.startMs));
  }, 120_000);
});
