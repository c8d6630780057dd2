import type { AudioSignals, SignalExtractor, SourceSignals, VideoSignals } from '../../domain/analysis/signals.js';
import { AudioFrameAnalyzer, type AudioFrames, speechSpans, toneSpans } from './audio-features.js';
import { integratedOrNull, loudPeaks, loudnessBuckets } from './audio-signals.js';
import { SignalExtractionError } from './errors.js';
import { type FfmpegLog, logLines, parseBlackdetect, parseEbur128, parseFreezedetect, parseSceneScores, parseSilencedetect } from './ffmpeg-log.js';
import { runTool } from './ffmpeg-process.js';
import { ANALYSIS_FPS, PCM_FD, VIDEO_FD, ffmpegArgs, ffprobeArgs } from './filter-graph.js';
import { parseProbe, type ProbedStreams } from './probe.js';
import { dropShorterThan, mergeSpans, subtractSpans } from '../../domain/analysis/spans.js';
import { Timeline } from './timeline.js';
import { transitionThresholds } from './transitions.js';
import { VideoFrameAnalyzer, type VideoFrames } from './video-frames.js';
import { meanColor, motionLevels, sceneCuts, videoDefaults } from './video-signals.js';

export interface FfmpegSignalExtractorOptions {
  /** See resolveFfmpegPath / resolveFfprobePath. */
  ffmpegPath: string;
  ffprobePath: string;
  /** Scene-change score (0..1) above which a frame is a cut. */
  sceneThreshold?: number;
  /** Budget for probe + measurement; default one minute plus the window's length (1x realtime). */
  timeoutMs?: number;
  /** Cap on the text ffmpeg may print; default 64 MiB (a 10 min window prints about 1.5 MB). */
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
    const thumbnails = new VideoFrameAnalyzer();
    const pipes: Record<number, (chunk: Buffer) => void> = {};
    if (audio) pipes[PCM_FD] = (chunk) => pcm.push(chunk);
    if (video) pipes[VIDEO_FD] = (chunk) => thumbnails.push(chunk);
    const args = ffmpegArgs({ url, window, videoStream: video?.index ?? null, audioStream: audio?.index ?? null });
    const run = await runTool(this.options.ffmpegPath, args, { timeoutMs: remaining(), maxOutputBytes: this.maxLogBytes, signal, pipes });
    if (run.exitCode !== 0) throw new SignalExtractionError(`ffmpeg could not decode the source: ${failureReason(run.stderr, url)}`);

    const timeline = new Timeline(window);
    const log = logLines(run.stderr);
    return {
      mediaKind,
      durationMs,
      window,
      video: video ? this.videoSignals(log, video, thumbnails.result(), timeline) : null,
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

  private videoSignals(log: FfmpegLog, stream: NonNullable<ProbedStreams['video']>, frames: VideoFrames, timeline: Timeline): VideoSignals {
    const scores = parseSceneScores(log);
    // Thumbnails and scores come from the same analysed frames, in order.
    const frameTime = (i: number) => scores[i]?.timeS ?? i / ANALYSIS_FPS;
    const differences = frames.differences.map((value, i) => ({ timeS: frameTime(i + 1), value }));
    // The jump into a flash and the jumps back out of it (within the frames the check looks at).
    const flashTimes = new Set(frames.flashes.flatMap((f) => Array.from({ length: transitionThresholds.flashFrames + 1 }, (_, k) => frameTime(f + k))));
    const gradual = frames.gradual.map((g) => ({ fromS: frameTime(g.fromFrame), toS: frameTime(g.toFrame), score: g.distance / 100 }));
    const cutTimes = new Set(scores.filter((s) => s.value > this.sceneThreshold).map((s) => s.timeS));
    const black = mergeSpans(timeline.spans(parseBlackdetect(log), ANALYSED_FRAME_MS));
    // A black picture is also an unchanging one; it is reported as black only.
    const frozen = subtractSpans(mergeSpans(timeline.spans(parseFreezedetect(log), ANALYSED_FRAME_MS)), black);
    return {
      width: stream.width,
      height: stream.height,
      frameRate: stream.frameRate,
      sceneCuts: sceneCuts(scores, timeline, this.sceneThreshold, { flashTimesS: flashTimes, gradual }),
      motion: motionLevels(differences, cutTimes, timeline),
      black,
      frozen: dropShorterThan(frozen, videoDefaults.minFrozenMs),
      dominantColor: meanColor(frames.meanYuv),
    };
  }
}

function audioSignals(log: FfmpegLog, frames: AudioFrames, timeline: Timeline): AudioSignals {
  const ebur128 = parseEbur128(log);
  const loudness = loudnessBuckets(ebur128.momentary, timeline);
  const tone = toneSpans(frames);
  return {
    loudness,
    integratedLufs: integratedOrNull(ebur128.integratedLufs),
    loudPeaks: loudPeaks(loudness, timeline),
    silence: mergeSpans(timeline.spans(parseSilencedetect(log), 0)),
    speech: timeline.fromWindowMs(speechSpans(frames)),
    music: timeline.fromWindowMs(tone),
  };
}

/**
 * The last lines ffmpeg printed that are not filter output, with the source URL (a presigned
 * URL is a credential) replaced.
 */
export function failureReason(stderr: string, url: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('[Parsed_'));
  const reason = lines.slice(-3).join(' | ') || 'no error message';
  return reason.split(url).join('<source>').replace(/https?:\/\/\S+/gi, '<url>');
}
