/**
 * The pocketsphinx transcriber: its `-time yes` output parsed into segments (pure), and, where
 * Debian's pocketsphinx and espeak-ng are installed, the real CLI on generated speech.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POCKETSPHINX_DEFAULTS, pocketsphinxModelFiles } from '../../../../functions/config.js';
import { parsePocketsphinxOutput, pocketsphinxTranscriber } from '../../../../functions/adapters/transcribers/pocketsphinx.js';
import { TranscriptionFailed } from '../../../../functions/adapters/transcribers/errors.js';
import { ffmpeg, ffmpegPath } from '../../../helpers/ground-truth-media.js';

/** Real output of pocketsphinx_continuous -time yes (two utterances; times from the file's start). */
const OUTPUT = [
  'tomorrow are you really to you',
  '<s> 0.000 0.020 0.999700',
  'tomorrow(2) 0.030 0.520 0.387744',
  'are 0.530 0.820 0.226758',
  '[NOISE] 0.830 0.900 0.500000',
  '<sil> 0.990 1.040 0.898155',
  'really(2) 1.050 1.370 0.995908',
  '</s> 2.070 2.490 1.000000',
  'tomorrow morning',
  '<s> 5.500 5.580 0.999700',
  '++BREATH++ 5.580 5.590 0.1',
  'tomorrow 5.590 6.090 3.2045e-02',
  'morning 6.130 6.550 0.953128',
  '</s> 7.640 8.070 1.000000',
  '',
].join('\n');

describe('parsePocketsphinxOutput', () => {
  it('one segment per utterance, fillers and silences dropped, pronunciation variants named as the word, times in source ms', () => {
    const window = { startMs: 60_000, endMs: 120_000 };
    expect(parsePocketsphinxOutput(OUTPUT, window)).toEqual([
      {
        startMs: 60_030,
        endMs: 61_380,
        text: 'tomorrow are really',
        speaker: null,
        words: [
          { text: 'tomorrow', startMs: 60_030, endMs: 60_530 },
          { text: 'are', startMs: 60_530, endMs: 60_830 },
          { text: 'really', startMs: 61_050, endMs: 61_380 },
        ],
      },
      {
        startMs: 65_590,
        endMs: 66_560,
        text: 'tomorrow morning',
        speaker: null,
        words: [
          { text: 'tomorrow', startMs: 65_590, endMs: 66_100 },
          { text: 'morning', startMs: 66_130, endMs: 66_560 },
        ],
      },
    ]);
  });

  it('no words (silence, or only fillers): no segments; times never pass the window', () => {
    expect(parsePocketsphinxOutput('', { startMs: 0, endMs: 1_000 })).toEqual([]);
    expect(parsePocketsphinxOutput('<s> 0.000 0.100 1.0\n<sil> 0.1 0.5 1.0\n</s> 0.5 0.9 1.0\n', { startMs: 0, endMs: 1_000 })).toEqual([]);
    const [segment] = parsePocketsphinxOutput('late 0.900 1.500 0.5\n', { startMs: 0, endMs: 1_000 });
    expect(segment?.words).toEqual([{ text: 'late', startMs: 900, endMs: 1_000 }]);
  });
});

const model = pocketsphinxModelFiles(POCKETSPHINX_DEFAULTS.modelDir);
const installed = existsSync(POCKETSPHINX_DEFAULTS.bin) && Object.values(model).every((path) => existsSync(path));
const espeak = spawnSync('espeak-ng', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!installed || !espeak)('pocketsphinx transcriber (needs Debian pocketsphinx, pocketsphinx-en-us and espeak-ng)', () => {
  let workDir: string;
  let speech: string;
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'pocketsphinx-test-'));
    const spoken = join(workDir, 'spoken.wav');
    expect(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '130', '-w', spoken, 'tomorrow morning we meet again']).status).toBe(0);
    // 3 s of silence, the sentence, silence to 10 s: the words must land after 3 s of source time.
    speech = join(workDir, 'speech.m4a');
    await ffmpeg([
      '-f',
      'lavfi',
      '-t',
      '3',
      '-i',
      'anullsrc=r=22050:cl=mono',
      '-i',
      spoken,
      '-filter_complex',
      '[0][1]concat=n=2:v=0:a=1,apad',
      '-t',
      '10',
      '-c:a',
      'aac',
      '-y',
      speech,
    ]);
  }, 60_000);
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it('recognises generated speech with word times inside the spoken span, in source time', async () => {
    const transcriber = pocketsphinxTranscriber({ ffmpegPath: ffmpegPath(), binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: POCKETSPHINX_DEFAULTS.modelDir });
    const segments = await transcriber.transcribe({ url: speech, objectKey: 'unused', window: { startMs: 1_000, endMs: 10_000 } });
    const words = (segments ?? []).flatMap((s) => s.words);
    expect(words.length).toBeGreaterThanOrEqual(2);
    for (const w of words) {
      expect(w.startMs).toBeGreaterThanOrEqual(2_900);
      expect(w.endMs).toBeLessThanOrEqual(6_500);
      expect(w.text).toMatch(/^[a-z']+$/);
    }
    // What it heard is not asserted: its accuracy on synthetic speech is poor (docs/benchmarks.md measures it).
  }, 60_000);

  it('a model directory that is not one: TranscriptionFailed', async () => {
    const transcriber = pocketsphinxTranscriber({ ffmpegPath: ffmpegPath(), binaryPath: POCKETSPHINX_DEFAULTS.bin, modelDir: workDir });
    await expect(transcriber.transcribe({ url: speech, objectKey: 'unused', window: { startMs: 0, endMs: 10_000 } })).rejects.toBeInstanceOf(
      TranscriptionFailed,
    );
  }, 60_000);
});
