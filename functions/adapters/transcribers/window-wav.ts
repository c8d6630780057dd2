import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Span, TranscriptSegment } from '../../domain/engine/signals.js';
import { SignalExtractionError } from '../signals/errors.js';
import { failureReason } from '../signals/ffmpeg-signal-extractor.js';
import { runTool } from '../signals/ffmpeg-process.js';

/** Offline recognisers (whisper.cpp, pocketsphinx) read 16 kHz mono 16-bit PCM. */
const SAMPLE_RATE = 16_000;
const WAV_HEADER_BYTES = 44;
/** Less audio than this in the window (the source's audio ended earlier): nothing to transcribe. */
const MIN_AUDIO_MS = 100;
export const MAX_TOOL_OUTPUT_BYTES = 16 * 1024 * 1024;

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** What a recogniser gets: the window's audio as a WAV in a scratch directory of its own, and its share of the time budget. */
interface WindowWav {
  wavPath: string;
  workDir: string;
  sampleRate: number;
  /** Milliseconds left of the budget (at least 1). */
  remaining: () => number;
}

/**
 * The part every local transcriber shares: ffmpeg decodes the window to a 16 kHz mono WAV in a
 * fresh temporary directory, then `recognise` turns it into segments; the directory is removed
 * afterwards. A window without audio (no audio track, or the audio ended before it) has no speech.
 * The budget (default ten minutes plus three times the window's length) covers both steps.
 */
export const transcribeWindowWav = (
  options: WindowWavOptions,
  url: string,
  window: Span,
  recognise: (wav: WindowWav) => Promise<TranscriptSegment[]>,
): Promise<TranscriptSegment[]> => withWindowWav(options, url, window, recognise, []);

interface WindowWavOptions {
  ffmpegPath: string;
  timeoutMs?: number | undefined;
  scratchPrefix: string;
}

/** transcribeWindowWav for any use of the window's audio: `use`'s answer, or `withoutAudio` when the window has none. */
export async function withWindowWav<T>(options: WindowWavOptions, url: string, window: Span, use: (wav: WindowWav) => Promise<T>, withoutAudio: T): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000 + 3 * (window.endMs - window.startMs));
  const remaining = () => Math.max(1, deadline - Date.now());
  const workDir = await mkdtemp(join(tmpdir(), options.scratchPrefix));
  try {
    const wavPath = join(workDir, 'window.wav');
    const decode = await runTool(
      options.ffmpegPath,
      [
        ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error'],
        // A stalled presigned-URL read fails after 30 s instead of hanging until the timeout.
        ...(/^https?:\/\//i.test(url) ? ['-rw_timeout', '30000000'] : []),
        ...(window.startMs > 0 ? ['-ss', seconds(window.startMs)] : []),
        ...['-t', seconds(window.endMs - window.startMs), '-i', url],
        ...['-map', '0:a:0?', '-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le'],
        // bitexact: a plain 44-byte header (which pocketsphinx skips), so the file size tells how much audio there is.
        ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-f', 'wav', '-y', wavPath],
      ],
      { timeoutMs: remaining(), maxOutputBytes: MAX_TOOL_OUTPUT_BYTES },
    );
    if (decode.exitCode !== 0 && /does not contain any stream/.test(decode.stderr)) return withoutAudio;
    if (decode.exitCode !== 0) throw new SignalExtractionError(`ffmpeg could not decode the audio: ${failureReason(decode.stderr, url)}`);
    const audioBytes = (await stat(wavPath)).size - WAV_HEADER_BYTES;
    if (audioBytes < (2 * SAMPLE_RATE * MIN_AUDIO_MS) / 1000) return withoutAudio;
    return await use({ wavPath, workDir, sampleRate: SAMPLE_RATE, remaining });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
