import { availableParallelism } from 'node:os';
import type { AudioSignals, ExtractedSignals, SignalExtractor, VideoSignals } from '../../domain/engine/signals.js';
import { AudioFrameAnalyzer, type AudioFrames, speechSpans, toneSpans } from './audio-features.js';
import { integratedOrNull, loudPeaks, loudnessBuckets } from './audio-signals.js';
import { SignalExtractionError } from './errors.js';
import {
  type FfmpegLog,
  logLines,
  parseBlackdetect,
  type RawSpan,
  type TimedValue,
  parseEbur128,
  parseFreezedetect,
  parseSceneScores,
  parseSilencedetect,
} from './ffmpeg-log.js';
import { runTool, type RunResult } from './ffmpeg-process.js';
import { ANALYSIS_FPS, PCM_FD, VIDEO_FD, ffmpegRuns, ffprobeArgs, type VideoPart, videoSplit } from './filter-graph.js';
import { parseProbe, type ProbedStreams } from './probe.js';
import { dropShorterThan, mergeSpans, subtractSpans } from '../../domain/engine/spans.js';
import { Timeline } from './timeline.js';
import { transitionThresholds } from './transitions.js';
import { THUMB_BYTES, VideoFrameAnalyzer, type VideoFrames } from './video-frames.js';
import { meanColor, motionLevels, sceneCuts, videoDefaults } from './video-signals.js';

interface FfmpegSignalExtractorOptions {
  /** See resolveFfmpegPath / resolveFfprobePath. */
  ffmpegPath: string;
  ffprobePath: string;
  /** Scene-change score (0..1) above which a frame is a cut. */
  sceneThreshold?: number;
  /** Budget for probe + measurement; default one minute plus the window's length (1x realtime). */
  timeoutMs?: number;
  /** Cap on the text each ffmpeg run may print; default 64 MiB (a 10 min window prints about 1.5 MB). */
  maxLogBytes?: number;
  /**
   * Picture runs a long window is split into, side by side (see filter-graph.ts videoSplit);
   * default the number of cores, at most 4. 1: one run.
   */
  videoParts?: number;
  /** Shortest part, seconds; default videoSplit.minPartS (tests lower it to split short fixtures). */
  minVideoPartSeconds?: number;
}

type ExtractInput = Parameters<SignalExtractor['extract']>[0];

const PROBE_TIMEOUT_MS = 30_000;
const ANALYSED_FRAME_MS = 1000 / ANALYSIS_FPS;

/**
 * Measures a window of a source with ffmpeg: one ffprobe for the streams, then ffmpeg runs side
 * by side: the window's picture decoded once for every video detector (a long window split over
 * time into parts, one run each; see filter-graph.ts videoSplit) and its sound once for every
 * audio detector. Each reads the URL directly (a presigned GET or a local path), seeking with
 * input `-ss`/`-t`. Split runs' thumbnails are held until all are done (3.5 KB per analysed
 * frame, 2 MB per minute).
 */
export class FfmpegSignalExtractor implements SignalExtractor {
  private readonly sceneThreshold: number;
  private readonly maxLogBytes: number;
  private readonly videoParts: number;

  constructor(private readonly options: FfmpegSignalExtractorOptions) {
    this.videoParts = options.videoParts ?? Math.min(4, availableParallelism());
    this.sceneThreshold = options.sceneThreshold ?? videoDefaults.sceneThreshold;
    this.maxLogBytes = options.maxLogBytes ?? 64 * 1024 * 1024;
  }

  /** `signal` (beyond the port) kills ffmpeg when the caller gives up. */
  async extract(input: ExtractInput & { signal?: AbortSignal }): Promise<ExtractedSignals> {
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
    const runs = ffmpegRuns(
      { url, window, videoStream: video?.index ?? null, audioStream: audio?.index ?? null, bFrames: video?.bFrames ?? false, videoParts: this.videoParts },
      this.options.minVideoPartSeconds ?? videoSplit.minPartS,
    );
    // One picture run streams its thumbnails straight in; parts are put in order once all are done.
    const single = runs.video.length === 1;
    const partThumbnails = runs.video.map(() => [] as Buffer[]);
    const [audioRun, ...videoRuns] = await this.runAll(
      [
        runs.audio && { args: runs.audio, pipes: { [PCM_FD]: (chunk: Buffer) => pcm.push(chunk) } },
        ...runs.video.map((part, i) => ({
          args: part.args,
          pipes: { [VIDEO_FD]: (chunk: Buffer) => (single ? thumbnails.push(chunk) : partThumbnails[i]?.push(chunk)) },
        })),
      ],
      remaining(),
      signal,
      url,
    );

    const timeline = new Timeline(window);
    const measured =
      video && videoRuns.length > 0
        ? joinVideoParts(
            runs.video.map((part, i) => ({ part, log: logLines(videoRuns[i]?.stderr ?? ''), thumbnails: Buffer.concat(partThumbnails[i] ?? []) })),
            single ? null : thumbnails,
          )
        : null;
    return {
      signals: {
        mediaKind,
        durationMs,
        window,
        video: video && measured ? this.videoSignals(measured, video, thumbnails.result(), timeline) : null,
        audio: audio && audioRun ? audioSignals(logLines(audioRun.stderr), pcm.result(), timeline) : null,
        transcript: null,
      },
      stills: [],
    };
  }

  /**
   * The picture and sound runs side by side (each its own process, so each gets a core). The
   * first to fail, or the caller's abort, stops the others.
   */
  private async runAll(
    runs: readonly ({ args: string[]; pipes: Record<number, (chunk: Buffer) => void> } | null)[],
    timeoutMs: number,
    signal: AbortSignal | undefined,
    url: string,
  ): Promise<(RunResult | null)[]> {
    signal?.throwIfAborted();
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const one = async (run: (typeof runs)[number]): Promise<RunResult | null> => {
      if (!run) return null;
      try {
        const result = await runTool(this.options.ffmpegPath, run.args, { timeoutMs, maxOutputBytes: this.maxLogBytes, signal: stop.signal, pipes: run.pipes });
        if (result.exitCode !== 0) throw new SignalExtractionError(`ffmpeg could not decode the source: ${failureReason(result.stderr, url)}`);
        return result;
      } catch (error) {
        if (!stop.signal.aborted) stop.abort(error);
        throw error;
      }
    };
    try {
      const settled = await Promise.allSettled(runs.map(one));
      // The first failure is the abort reason the other runs were stopped with.
      if (stop.signal.aborted)
        throw stop.signal.reason instanceof Error ? stop.signal.reason : new SignalExtractionError('aborted', { cause: stop.signal.reason });
      return settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
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

  private videoSignals(measured: VideoMeasurements, stream: NonNullable<ProbedStreams['video']>, frames: VideoFrames, timeline: Timeline): VideoSignals {
    const { scores } = measured;
    // Thumbnails and scores come from the same analysed frames, in order.
    const frameTime = (i: number) => scores[i]?.timeS ?? i / ANALYSIS_FPS;
    const differences = frames.differences.map((value, i) => ({ timeS: frameTime(i + 1), value }));
    // The jump into a flash and the jumps back out of it (within the frames the check looks at).
    const flashTimes = new Set(frames.flashes.flatMap((f) => Array.from({ length: transitionThresholds.flashFrames + 1 }, (_, k) => frameTime(f + k))));
    const gradual = frames.gradual.map((g) => ({ fromS: frameTime(g.fromFrame), toS: frameTime(g.toFrame), score: g.distance / 100 }));
    const cutTimes = new Set(scores.filter((s) => s.value > this.sceneThreshold).map((s) => s.timeS));
    const black = mergeSpans(timeline.spans(measured.black, ANALYSED_FRAME_MS));
    // A black picture is also an unchanging one; it is reported as black only.
    const frozen = subtractSpans(mergeSpans(timeline.spans(measured.frozen, ANALYSED_FRAME_MS)), black);
    return {
      width: stream.width,
      height: stream.height,
      frameRate: stream.frameRate,
      sceneCuts: sceneCuts(scores, timeline, this.sceneThreshold, { flashTimesS: flashTimes, gradual }),
      motion: motionLevels(differences, cutTimes, timeline),
      black,
      frozen: dropShorterThan(frozen, videoDefaults.minFrozenMs),
      dominantColor: meanColor(frames.meanYuv),
      visual: null,
    };
  }
}

/** What the picture runs measured, on the window's clock (seconds from its start). */
interface VideoMeasurements {
  /** Scene scores of the analysed frames, in order; the thumbnails analysed are the same frames. */
  scores: TimedValue[];
  black: RawSpan[];
  frozen: RawSpan[];
}

/**
 * The picture runs' measurements as if one run had made them. A part keeps its frames in
 * [keepFromS, keepToS) (its pre-roll and overlap are the neighbours'), in order, and feeds their
 * thumbnails to `analyzer` (null: a single run already streamed them); its spans are all kept,
 * one left open at a part's end (not the last) ending there, and merged later: a span that
 * crosses a boundary is seen whole by one part or continued by the next.
 */
function joinVideoParts(
  parts: readonly { part: Omit<VideoPart, 'args'>; log: FfmpegLog; thumbnails: Uint8Array }[],
  analyzer: VideoFrameAnalyzer | null,
): VideoMeasurements {
  const joined: VideoMeasurements = { scores: [], black: [], frozen: [] };
  const half = 0.5 / ANALYSIS_FPS;
  parts.forEach(({ part, log, thumbnails }, index) => {
    const last = index === parts.length - 1;
    const shift = (spans: RawSpan[]) =>
      spans.map(({ startS, endS }) => ({ startS: startS + part.fromS, endS: endS === null ? (last ? null : part.toS) : endS + part.fromS }));
    joined.black.push(...shift(parseBlackdetect(log)));
    joined.frozen.push(...shift(parseFreezedetect(log)));
    parseSceneScores(log).forEach(({ timeS, value }, frame) => {
      const at = timeS + part.fromS;
      if ((index > 0 && at < part.keepFromS - half) || (!last && at >= part.keepToS - half)) return;
      joined.scores.push({ timeS: at, value });
      const offset = frame * THUMB_BYTES;
      if (analyzer && offset + THUMB_BYTES <= thumbnails.length) analyzer.push(thumbnails.subarray(offset, offset + THUMB_BYTES));
    });
  });
  return joined;
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
  return reason
    .split(url)
    .join('<source>')
    .replace(/https?:\/\/\S+/gi, '<url>');
}
