import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../../shared/zod.js';
import type { Span, Transcriber, TranscriptSegment, TranscriptWord } from '../../domain/engine/signals.js';
import { runTool } from '../signals/ffmpeg-process.js';
import { TranscriptionFailed } from './errors.js';
import { MAX_TOOL_OUTPUT_BYTES, transcribeWindowWav } from './window-wav.js';

export interface WhisperCppOptions {
  /** See resolveFfmpegPath. */
  ffmpegPath: string;
  /** The whisper.cpp CLI: `whisper-cli` (`main` in builds before 2025). */
  whisperPath: string;
  /** A ggml model file, e.g. `ggml-base.en.bin`. */
  modelPath: string;
  /** Spoken language as whisper.cpp names it (`en`, `de`, ... or `auto`). */
  language: string;
  /** Budget of decode + transcription; default ten minutes plus three times the window's length. */
  timeoutMs?: number;
}

const offsetsSchema = z.object({ from: z.number(), to: z.number() });

/** The part of `--output-json-full` that is read: segments, and their tokens with offsets in ms. */
const whisperJsonSchema = z.object({
  transcription: z.array(
    z.object({
      offsets: offsetsSchema,
      text: z.string(),
      tokens: z._default(z.array(z.object({ text: z.string(), offsets: z.optional(offsetsSchema) })), []),
    }),
  ),
});
type WhisperSegment = z.infer<typeof whisperJsonSchema>['transcription'][number];

/** Control tokens (`[_BEG_]`, `[_TT_150]`, `[_EOT_]`, ...): no text of the speech. */
const SPECIAL_TOKEN = /^\[_.*\]$/;
/** whisper.cpp's notes on non-speech (`[BLANK_AUDIO]`, `(music)`): not words anyone said. */
const NON_SPEECH = /^[[(].*[\])]$/;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/**
 * The JSON text as whisper.cpp writes it, read byte for byte: it writes each token's raw bytes,
 * so a token may hold half of a UTF-8 character. Read as latin1, every string keeps its bytes and
 * is decoded as UTF-8 only once whole words are joined. Control characters (invalid in JSON
 * strings, which it does not escape) become spaces, which JSON allows between tokens too.
 */
function parseWhisperJson(bytes: Buffer): WhisperSegment[] {
  // eslint-disable-next-line no-control-regex -- removing exactly these is the point
  const text = bytes.toString('latin1').replace(/[\u0000-\u001f]/g, ' ');
  return whisperJsonSchema.parse(JSON.parse(text)).transcription;
}

const utf8 = (latin1: string | Buffer[]) => (typeof latin1 === 'string' ? Buffer.from(latin1, 'latin1') : Buffer.concat(latin1)).toString('utf8');

/** Tokens joined into words: a token that starts with a space starts a word; punctuation is trimmed off. */
function wordsOf(segment: WhisperSegment, offsetMs: number): TranscriptWord[] {
  const words: { bytes: Buffer[]; startMs: number; endMs: number }[] = [];
  for (const token of segment.tokens) {
    if (SPECIAL_TOKEN.test(token.text)) continue;
    const bytes = Buffer.from(token.text, 'latin1');
    const { from, to } = token.offsets ?? segment.offsets;
    const last = words.at(-1);
    if (!last || bytes[0] === 0x20) words.push({ bytes: [bytes], startMs: from, endMs: to });
    else {
      last.bytes.push(bytes);
      last.endMs = Math.max(last.endMs, to);
    }
  }
  return words
    .map((w) => ({ text: utf8(w.bytes).trim().replace(EDGE_PUNCTUATION, ''), startMs: offsetMs + w.startMs, endMs: offsetMs + Math.max(w.startMs, w.endMs) }))
    .filter((w) => w.text.length > 0);
}

/** whisper.cpp's segments as ours: times moved from the window's start to the source's, no speakers. */
export function segmentsOf(whisperSegments: WhisperSegment[], window: Span): TranscriptSegment[] {
  return whisperSegments.flatMap((segment) => {
    const text = utf8(segment.text).trim();
    if (!text || NON_SPEECH.test(text)) return [];
    const startMs = Math.min(window.startMs + segment.offsets.from, window.endMs);
    const endMs = Math.min(Math.max(window.startMs + segment.offsets.to, startMs), window.endMs);
    return [{ startMs, endMs, text, speaker: null, words: wordsOf(segment, window.startMs) }];
  });
}

/**
 * The `whisper-cpp` transcriber (DESIGN §7), for the local host: ffmpeg decodes the window to a
 * 16 kHz mono WAV, the whisper.cpp CLI transcribes it with token timestamps
 * (`--output-json-full`). whisper.cpp does not tell speakers apart (its tinydiarize mode only
 * marks turns, with special models), so every speaker is null.
 */
export function whisperCppTranscriber(options: WhisperCppOptions): Transcriber {
  return {
    transcribe: ({ url, window }) =>
      transcribeWindowWav(
        { ffmpegPath: options.ffmpegPath, timeoutMs: options.timeoutMs, scratchPrefix: 'whisper-cpp-' },
        url,
        window,
        async ({ wavPath, workDir, remaining }) => {
          const outputBase = join(workDir, 'transcript');
          const args = ['-m', options.modelPath, '-f', wavPath, '-l', options.language, '-ojf', '-of', outputBase, '-np'];
          const run = await runTool(options.whisperPath, args, { timeoutMs: remaining(), maxOutputBytes: MAX_TOOL_OUTPUT_BYTES }).catch((error: unknown) => {
            throw new TranscriptionFailed(`whisper.cpp did not run: ${(error as Error).message}`, { cause: error });
          });
          const stderrTail = run.stderr.trim().split(/\r?\n/).slice(-3).join(' | ') || 'no error message';
          if (run.exitCode !== 0) throw new TranscriptionFailed(`whisper.cpp exited with ${run.exitCode}: ${stderrTail}`);
          // Some argument errors exit with 0 and write nothing.
          const json = await readFile(`${outputBase}.json`).catch(() => null);
          if (!json) throw new TranscriptionFailed(`whisper.cpp wrote no transcript: ${stderrTail}`);
          try {
            return segmentsOf(parseWhisperJson(json), window);
          } catch (error) {
            throw new TranscriptionFailed('whisper.cpp wrote a transcript that is not its --output-json-full format', { cause: error });
          }
        },
      ),
  };
}
