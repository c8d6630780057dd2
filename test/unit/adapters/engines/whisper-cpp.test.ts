/** The whisper-cpp transcriber with the real ffmpeg and a fake whisper.cpp CLI (see writeFakeWhisperCli). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testLocalAnalyzer as localAnalyzer, testMeaning } from '../../../helpers/local-analyzer.js';
import { SignalExtractionError } from '../../../../functions/adapters/signals/errors.js';
import { TranscriptionFailed } from '../../../../functions/adapters/transcribers/errors.js';
import { whisperCppTranscriber } from '../../../../functions/adapters/transcribers/whisper-cpp.js';
import { ffmpegPath, groundTruthAudio, solidColorVideo, unreadableFile, type GroundTruthMedia } from '../../../helpers/ground-truth-media.js';
import { audioSignals, observationsOf, scanner, writeFakeWhisperCli, type FakeWhisperBehaviour } from './fixtures.js';

// The NLP model loads once per file: seconds on a loaded machine, more than a test's own timeout.
beforeAll(() => testMeaning(), 120_000);

const TEST_TIMEOUT = 30_000;
const WINDOW = { startMs: 10_000, endMs: 14_000 };

let workDir: string;
let audio: GroundTruthMedia;
let silentVideo: GroundTruthMedia;

const fakeWhisper = (behaviour: FakeWhisperBehaviour) => writeFakeWhisperCli(workDir, behaviour);

const transcriberWith = (whisperPath: string) =>
  whisperCppTranscriber({ ffmpegPath: ffmpegPath(), whisperPath, modelPath: '/models/ggml-base.en.bin', language: 'en' });

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'whisper-cpp-test-'));
  [audio, silentVideo] = await Promise.all([groundTruthAudio(), solidColorVideo()]);
}, 120_000);

afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('whisper-cpp transcriber', () => {
  it(
    'gives whisper.cpp the window as 16 kHz mono WAV and asks for full JSON with token times',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      await transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW });

      const seen = await whisper.invocation();
      expect(seen).toMatchObject({ sampleRate: 16_000, channels: 1 });
      // The 4 s window, not the 24 s source.
      expect(seen!.samples).toBeGreaterThan(3.9 * 16_000);
      expect(seen!.samples).toBeLessThan(4.1 * 16_000);
      expect(seen!.args).toEqual(expect.arrayContaining(['-m', '/models/ggml-base.en.bin', '-l', 'en', '-ojf']));
    },
    TEST_TIMEOUT,
  );

  it(
    'answers segments in source time with whole words (split UTF-8 joined, punctuation and control tokens dropped), no blank-audio notes, no speaker',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      const segments = await transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW });

      expect(segments).toEqual([
        {
          startMs: 10_000,
          endMs: 11_500,
          text: 'Hello café world.',
          speaker: null,
          words: [
            { startMs: 10_000, endMs: 10_400, text: 'Hello' },
            { startMs: 10_450, endMs: 10_900, text: 'café' },
            { startMs: 10_950, endMs: 11_400, text: 'world' },
          ],
        },
        { startMs: 12_000, endMs: 13_900, text: 'Goodbye.', speaker: null, words: [{ startMs: 12_000, endMs: 13_900, text: 'Goodbye' }] },
      ]);
    },
    TEST_TIMEOUT,
  );

  it(
    'feeds the local analyzer words it can ground, and the observation passes the contract',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      const signals = audioSignals(await transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW }));
      const def = scanner('find_moments', 'Find where they say goodbye', { min_seconds: 5, max_seconds: 10 });

      const observations = observationsOf(await localAnalyzer.analyze({ scanner: def, signals }), def, signals);

      expect(observations).toHaveLength(1);
      expect(observations[0]!.evidence).toMatchObject({ start_ms: 12_000, end_ms: 17_000, transcript_excerpt: 'Goodbye.', speaker: null });
    },
    TEST_TIMEOUT,
  );

  it(
    'answers no speech for a source without an audio track, without running whisper.cpp',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      await expect(
        transcriberWith(whisper.path).transcribe({ url: silentVideo.path, objectKey: 'unused', window: { startMs: 0, endMs: 3_000 } }),
      ).resolves.toEqual([]);
      expect(await whisper.invocation()).toBeNull();
    },
    TEST_TIMEOUT,
  );

  it(
    'answers no speech for a window past the end of the audio',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      await expect(
        transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: { startMs: 30_000, endMs: 40_000 } }),
      ).resolves.toEqual([]);
      expect(await whisper.invocation()).toBeNull();
    },
    TEST_TIMEOUT,
  );

  it(
    'fails the task with whisper.cpp’s own message when it exits with an error',
    async () => {
      const whisper = await fakeWhisper('crash');
      const failure = transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW });
      await expect(failure).rejects.toThrow(TranscriptionFailed);
      await expect(failure).rejects.toThrow(/failed to load model/);
    },
    TEST_TIMEOUT,
  );

  it(
    'fails the task when whisper.cpp exits 0 without a transcript (as it does on some argument errors)',
    async () => {
      const whisper = await fakeWhisper('write-nothing');
      await expect(transcriberWith(whisper.path).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW })).rejects.toThrow(/wrote no transcript/);
    },
    TEST_TIMEOUT,
  );

  it(
    'fails the task when the binary does not exist',
    async () => {
      await expect(transcriberWith(join(workDir, 'missing-whisper-cli')).transcribe({ url: audio.path, objectKey: 'unused', window: WINDOW })).rejects.toThrow(
        TranscriptionFailed,
      );
    },
    TEST_TIMEOUT,
  );

  it(
    'reports a source ffmpeg cannot decode as unreadable (SignalExtractionError), like the signal stage does',
    async () => {
      const whisper = await fakeWhisper('transcribe');
      await expect(transcriberWith(whisper.path).transcribe({ url: await unreadableFile(), objectKey: 'unused', window: WINDOW })).rejects.toThrow(
        SignalExtractionError,
      );
    },
    TEST_TIMEOUT,
  );
});
