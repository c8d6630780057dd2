import { readFile } from 'node:fs/promises';
import type { Transcriber, TranscriptSegment } from '../../domain/engine/signals.js';
import { TranscriptionFailed } from './errors.js';
import { speechModels, type SpeechModelFiles } from './moonshine-model.js';
import { recognitionSegments, speechSpans } from './speech-segments.js';
import { transcribeWindowWav } from './window-wav.js';
import { bareWord, spreadByLength, wavHeader, type WordAligner } from './word-timing.js';

export interface MoonshineOptions {
  /** See resolveFfmpegPath. */
  ffmpegPath: string;
  /** See resolveSpeechModelFiles. */
  models: SpeechModelFiles;
  /** Word times (pocketsphinxAligner); null: spread over each segment by length. */
  aligner: WordAligner | null;
  /** Budget of decode + recognition; default ten minutes plus three times the window's length. */
  timeoutMs?: number;
}

const WAV_HEADER_BYTES = 44;
const BYTES_PER_MS = 32;

/**
 * The `moonshine` transcriber (DESIGN §11), the local host's default and the English transcriber
 * of the AWS signals unit: ffmpeg decodes the window to 16 kHz mono, Silero VAD finds where
 * someone speaks, those spans (short ones joined with neighbours) are recognised one by one by
 * Moonshine Tiny English, and each segment's words are timed by the aligner. One segment per
 * recognised span, over the whole span (so a transcript's segments are where speech was heard);
 * spans with no words are dropped. No speakers.
 */
export function moonshineTranscriber(options: MoonshineOptions): Transcriber {
  return {
    transcribe: ({ url, window }) =>
      transcribeWindowWav(
        { ffmpegPath: options.ffmpegPath, timeoutMs: options.timeoutMs, scratchPrefix: 'moonshine-' },
        url,
        window,
        async ({ wavPath, workDir, remaining }) => {
          const models = await speechModels(options.models).catch((error: unknown) => {
            throw new TranscriptionFailed(`the Moonshine or Silero VAD model did not load: ${(error as Error).message}`, { cause: error });
          });
          const pcm = (await readFile(wavPath)).subarray(WAV_HEADER_BYTES);
          const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
          const audio = Float32Array.from(samples, (s) => s / 32_768);
          const segments: TranscriptSegment[] = [];
          // Alignment (a child process) of one segment overlaps recognition of the next, one at a time.
          let aligning = Promise.resolve();
          for (const span of recognitionSegments(speechSpans(await models.speechProbabilities(audio)))) {
            if (remaining() <= 1) throw new TranscriptionFailed('Moonshine ran out of time before the end of the window');
            const text = await models.recognise(audio.subarray(span.startMs * 16, span.endMs * 16));
            const words = text.split(/\s+/).map(bareWord).filter(Boolean);
            if (!words.length) continue;
            const durationMs = span.endMs - span.startMs;
            const segment: TranscriptSegment = {
              startMs: window.startMs + span.startMs,
              endMs: Math.min(window.startMs + span.endMs, window.endMs),
              text,
              speaker: null,
              words: [],
            };
            segments.push(segment);
            const { aligner } = options;
            aligning = aligning.then(async () => {
              const bytes = pcm.subarray(span.startMs * BYTES_PER_MS, span.endMs * BYTES_PER_MS);
              const timed = aligner
                ? await aligner({ words, wav: Buffer.concat([wavHeader(bytes.length), bytes]), durationMs, workDir, timeoutMs: remaining() })
                : spreadByLength(words, { startMs: 0, endMs: durationMs });
              segment.words = timed.map((w) => ({
                text: w.text,
                startMs: segment.startMs + w.startMs,
                endMs: Math.min(segment.startMs + w.endMs, segment.endMs),
              }));
            });
            // Awaited below; until then a failure must not count as an unhandled rejection.
            aligning.catch(() => undefined);
          }
          await aligning;
          return segments;
        },
      ),
  };
}
