import type { AudioSignals, SignalExtractor, SourceSignals, Span, VideoSignals } from '../../domain/analysis/signals.js';
import { AudioFrameAnalyzer, type AudioFrames, speechSpans, toneSpans } from './audio-features.js';
import { integratedOrNull, loudPeaks, loudnessBuckets } from './audio-signals.js';
import { SignalExtractionError } from './errors.js';
import { type FfmpegLog, logLines, parseBlackdetect, parseEbur128, parseFrameMetadata, parseFreezedetect, parseSilencedetect } from './ffmpeg-log.js';
import { runTool } from './ffmpeg-process.js';
import { ANALYSIS_FPS, COLOUR_KEYS, FRAME_KEYS, ffmpegArgs, ffprobeArgs } from './filter-graph.js';
import { parseProbe, type ProbedStreams } from './probe.js';
import { clampSpans, dropShorterThan, mergeSpans, subtractSpans } from './spans.js';
import { Timeline } from './timeline.js';
import { meanColor, motionLevels, sceneCuts, videoDefaults } from './video-signals.js';

export interface FfmpegSignalExtractorOptions {
  /** See resolveFfmpegPath / resolveFfprobePath. */
  ffmpegPath: string;
  ffprobePath: string;
  /** Scene-change score (0..1) above which a frame is a cut. */
  sceneThreshold?: number;
  /** Budget for probe + measurement; default one minute plus the window's length (1x realtime). */
  timeoutMs?: number;
  /** Cap on the text ffmpeg may print; default 64 MiB (a 10 min window prints about 6 MiB). */
  maxLogBytes?: number;
}

export type ExtractInput = Parameters<SignalExtractor['extract']>[0];

const PROBE_TIMEOUT_MS = 30_000;
const ANALYSED_FRAME_MS = 1000 / ANALYSIS_FPS;

/**
 * Measures a window of a source with ffmpeg: one ffprobe for the streams, then one ffmpeg run
 * that decodes the window once and feeds every detector (see filter-graph.ts). Reads the URL
 * directly (a presigned GET or a local path), seeking to the window with input `-ss`/`-t`.
 */
export class FfmpegSignalExtractor implements SignalExtractor {
  private readonly sceneThreshold: number;
  private readonly maxLogBytes: number;

  constructor(private readonly options: FfmpegSignalExtractorOptions) {
    this.sceneThreshold = options.sceneThreshold ?? videoDefaults.sceneThreshold;
    this.maxLogBytes = options.maxLogBytes ?? 64 * 1024 * 1024;
  }

  /** `signal` (beyond the port) kills ffmpeg when the caller gives up. */
  async extract(input: ExtractInput & { signal?: AbortSignal }): Promise<SourceSignals> {
    const { url, mediaKind, durationMs, window, signal } = input;
    if (!(window.endMs > window.startMs)) throw new SignalExtractionError(`empty window ${window.startMs}-${window.endMs} ms`);
    const deadline = Date.now() + (this.options.timeoutMs ?? 60_000 + (window.endMs - window.startMs));
    const remaining = () => Math.max(1, deadline - Date.now());

    const streams = await this.probe(url, Math.min(PROBE_TIMEOUT_MS, remaining()), signal);
    const video = mediaKind === 'video' ? streams.video : null;
    const audio = streams.audio;
    if (!video && !audio) throw new SignalExtractionError(`the source has no ${mediaKind === 'video' ? 'video or audio' : 'audio'} stream`);

    const pcm = new AudioFrameAnalyzer();
    const args = ffmpegArgs({ url, window, videoStream: video?.index ?? null, audioStream: audio?.index ?? null });
    const run = await runTool(this.options.ffmpegPath, args, {
      timeoutMs: remaining(),
      maxOutputBytes: this.maxLogBytes,
      signal,
      onFd3: (chunk) => pcm.push(chunk),
    });
    if (run.exitCode !== 0) throw new SignalExtractionError(`ffmpeg could not decode the source: ${failureReason(run.stderr, url)}`);

    const timeline = new Timeline(window);
    const log = logLines(run.stderr);
    return {
      mediaKind,
      durationMs,
      window,
      video: video ? this.videoSignals(log, video, timeline) : null,
      audio: audio ? audioSignals(log, pcm.result(), timeline) : null,
      transcript: null,
    };
  }

  private async probe(url: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<ProbedStreams> {
    const run = await runTool(this.options.ffprobePath, ffprobeArgs(url), { timeoutMs, maxOutputBytes: 1024 * 1024, signal });
    if (run.exitCode !== 0) throw new SignalExtractionError(`ffprobe could not read the source: ${failureReason(run.stderr, url)}`);
    try {
      return parseProbe(run.stdout);
    } catch (error) {
      throw new SignalExtractionError('ffprobe printed no stream list', { cause: error });
    }
  }

  private videoSignals(log: FfmpegLog, stream: NonNullable<ProbedStreams['video']>, timeline: Timeline): VideoSignals {
    const frames = parseFrameMetadata(log);
    const series = (key: string) => frames.get(key) ?? [];
    const scores = series(FRAME_KEYS.scene);
    const cutTimes = new Set(scores.filter((s) => s.value > this.sceneThreshold).map((s) => s.timeS));
    const black = mergeSpans(timeline.spans(parseBlackdetect(log), ANALYSED_FRAME_MS));
    // A black picture is also an unchanging one; it is reported as black only.
    const frozen = subtractSpans(mergeSpans(timeline.spans(parseFreezedetect(log), ANALYSED_FRAME_MS)), black);
    return {
      width: stream.width,
      height: stream.height,
      frameRate: stream.frameRate,
      sceneCuts: sceneCuts(scores, timeline, this.sceneThreshold),
      motion: motionLevels(series(FRAME_KEYS.ydif), cutTimes, timeline),
      black,
      frozen: dropShorterThan(frozen, videoDefaults.minFrozenMs),
      dominantColor: meanColor(series(COLOUR_KEYS.yavg), series(COLOUR_KEYS.uavg), series(COLOUR_KEYS.vavg)),
    };
  }
}

function audioSignals(log: FfmpegLog, frames: AudioFrames, timeline: Timeline): AudioSignals {
  const ebur128 = parseEbur128(log);
  const loudness = loudnessBuckets(ebur128.momentary, timeline);
  // Speech/tone spans are ms from the start of the PCM, i.e. of the window.
  const toSource = (spans: Span[]) =>
    clampSpans(
      spans.map((s) => ({ startMs: s.startMs + timeline.window.startMs, endMs: s.endMs + timeline.window.startMs })),
      timeline.window,
    );
  const tone = toneSpans(frames);
  return {
    loudness,
    integratedLufs: integratedOrNull(ebur128.integratedLufs),
    loudPeaks: loudPeaks(loudness, timeline),
    silence: mergeSpans(timeline.spans(parseSilencedetect(log), 0)),
    speech: toSource(speechSpans(frames, tone)),
    music: toSource(tone),
  };
}

/**
 * The last lines ffmpeg printed that are not progress or filter output, with the source URL
 * (a presigned URL is a credential) replaced.
 */
export function failureReason(stderr: string, url: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('[Parsed_'));
  const reason = lines.slice(-3).join(' | ') || 'no error message';
  return reason.split(url).join('<source>').replace(/https?:\/\/\S+/gi, '<url>');
}
