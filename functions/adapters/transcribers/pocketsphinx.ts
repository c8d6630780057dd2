import { pocketsphinxModelFiles } from '../../config.js';
import type { Span, Transcriber, TranscriptSegment, TranscriptWord } from '../../domain/engine/signals.js';
import { runTool } from '../signals/ffmpeg-process.js';
import { TranscriptionFailed } from './errors.js';
import { MAX_TOOL_OUTPUT_BYTES, transcribeWindowWav } from './window-wav.js';

export interface PocketsphinxOptions {
  /** See resolveFfmpegPath. */
  ffmpegPath: string;
  /** `pocketsphinx_continuous` (Debian package `pocketsphinx`). */
  binaryPath: string;
  /** A model directory laid out as Debian's `pocketsphinx-en-us`: see pocketsphinxModelFiles. */
  modelDir: string;
  /** Budget of decode + recognition; default ten minutes plus three times the window's length. */
  timeoutMs?: number;
}

/**
 * One line of `-time yes` output: `word start_s end_s confidence`. The hypothesis line of each
 * utterance (plain words) never matches: it has no numbers.
 */
const TIMED_WORD = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;
/** Utterance boundaries. */
const UTTERANCE_START = '<s>';
const UTTERANCE_END = '</s>';
/** Silence `<sil>`, fillers `[NOISE]`, `[SPEECH]`, `++BREATH++`: nothing anyone said. */
const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;
/** Alternate pronunciations of a dictionary word: `the(2)` is `the`. */
const PRONUNCIATION_VARIANT = /\(\d+\)$/;

/**
 * pocketsphinx_continuous's `-time yes` output as our segments: one segment per utterance (the
 * recogniser's own split at pauses), word times moved from the window's start to the source's,
 * fillers and silences dropped, pronunciation variants named as the word. Its times are from the
 * start of the file it read (not of the utterance). No speakers.
 */
export function parsePocketsphinxOutput(stdout: string, window: Span): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: TranscriptWord[] = [];
  const flush = () => {
    if (words.length) {
      segments.push({ startMs: words[0]!.startMs, endMs: words.at(-1)!.endMs, text: words.map((w) => w.text).join(' '), speaker: null, words });
    }
    words = [];
  };
  for (const line of stdout.split(/\r?\n/)) {
    const timed = TIMED_WORD.exec(line.trim());
    if (!timed) continue;
    const [, token = '', start = '0', end = '0'] = timed;
    if (token === UTTERANCE_START || token === UTTERANCE_END) {
      flush();
      continue;
    }
    if (FILLER.test(token)) continue;
    const text = token.replace(PRONUNCIATION_VARIANT, '');
    if (!text) continue;
    const startMs = Math.min(window.startMs + Math.round(Number(start) * 1000), window.endMs);
    // pocketsphinx's end is the last frame of the word (10 ms frames): the word lasts to its end.
    const endMs = Math.min(Math.max(window.startMs + Math.round(Number(end) * 1000) + 10, startMs), window.endMs);
    words.push({ text, startMs, endMs });
  }
  flush();
  return segments;
}

/**
 * The `pocketsphinx` transcriber (DESIGN §7), for the local host: CMU PocketSphinx, offline, with
 * Debian's US English models. ffmpeg decodes the window to a 16 kHz mono WAV, then
 * `pocketsphinx_continuous -time yes` recognises it with word times. Far less accurate than
 * whisper.cpp or Amazon Transcribe (docs/benchmarks.md measures it), but an apt package away.
 */
export function pocketsphinxTranscriber(options: PocketsphinxOptions): Transcriber {
  const model = pocketsphinxModelFiles(options.modelDir);
  return {
    transcribe: ({ url, window }) =>
      transcribeWindowWav(
        { ffmpegPath: options.ffmpegPath, timeoutMs: options.timeoutMs, scratchPrefix: 'pocketsphinx-' },
        url,
        window,
        async ({ wavPath, sampleRate, remaining }) => {
          const args = [
            ...['-infile', wavPath, '-time', 'yes', '-samprate', String(sampleRate)],
            ...['-hmm', model.acousticModel, '-lm', model.languageModel, '-dict', model.dictionary],
            // Its log goes to stderr otherwise: megabytes per minute of audio.
            ...['-logfn', '/dev/null'],
          ];
          const run = await runTool(options.binaryPath, args, { timeoutMs: remaining(), maxOutputBytes: MAX_TOOL_OUTPUT_BYTES }).catch((error: unknown) => {
            throw new TranscriptionFailed(`pocketsphinx did not run: ${(error as Error).message}`, { cause: error });
          });
          if (run.exitCode !== 0) {
            const stderrTail = run.stderr.trim().split(/\r?\n/).slice(-3).join(' | ') || 'no error message (its log is off)';
            throw new TranscriptionFailed(`pocketsphinx exited with ${run.exitCode}: ${stderrTail}`);
          }
          return parsePocketsphinxOutput(run.stdout, window);
        },
      ),
  };
}
