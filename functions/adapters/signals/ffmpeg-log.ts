/**
 * Pure parsers of what ffmpeg 4.1+ prints on stderr (log level `info`) for the filters the
 * extractor runs. Times are seconds on the analysed stream's clock, which starts at 0 at the
 * window start (ffmpeg rebases input timestamps after `-ss`). Unparseable lines are skipped:
 * ffmpeg interleaves decoder warnings and its own banner with the filter output.
 */

/** The frame metadata key of `select`'s scene-change score. */
export const SCENE_SCORE_KEY = 'lavfi.scene_score';

export interface TimedValue {
  timeS: number;
  value: number;
}

/** A span as a detector reports it; `endS` is null when the stream ended inside the span. */
export interface RawSpan {
  startS: number;
  endS: number | null;
}

/** A log as text, or already split into lines (the extractor splits once for every parser). */
export type FfmpegLog = string | readonly string[];

export const logLines = (log: FfmpegLog): readonly string[] => (typeof log === 'string' ? log.split(/\r?\n/) : log);

const num = (text: string | undefined): number | null => {
  if (text === undefined) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
};

// `[Parsed_metadata_6 @ 0x55d1c0a0] frame:12   pts:12   pts_time:1.2`
const FRAME_HEADER = /^\[([^\]]+)\] frame:\d+\s+pts:\S+\s+pts_time:(\S+)/;
// `[Parsed_metadata_6 @ 0x55d1c0a0] lavfi.scene_score=0.010300`
const FRAME_VALUE = /^\[([^\]]+)\] (lavfi\.[\w.]+)=(\S+)$/;

/**
 * Values printed by `metadata=mode=print` filters, by key. Each filter instance prints a frame
 * header (with `pts_time`) and then that frame's keys, so values are timed by the last header of
 * the same instance (the prefix tag), which stays right if instances interleave.
 */
export function parseFrameMetadata(log: FfmpegLog): Map<string, TimedValue[]> {
  const lastTime = new Map<string, number>();
  const byKey = new Map<string, TimedValue[]>();
  for (const line of logLines(log)) {
    const header = FRAME_HEADER.exec(line);
    if (header) {
      const time = num(header[2]);
      if (header[1] !== undefined && time !== null) lastTime.set(header[1], time);
      continue;
    }
    const entry = FRAME_VALUE.exec(line);
    if (!entry?.[1] || !entry[2]) continue;
    const timeS = lastTime.get(entry[1]);
    const value = num(entry[3]);
    if (timeS === undefined || value === null) continue;
    const series = byKey.get(entry[2]) ?? [];
    series.push({ timeS, value });
    byKey.set(entry[2], series);
  }
  return byKey;
}

/** Scene-change scores (0..1) of every analysed frame, from `select` + `metadata=print`. */
export function parseSceneScores(log: FfmpegLog): TimedValue[] {
  return parseFrameMetadata(log).get(SCENE_SCORE_KEY) ?? [];
}

/** `[blackdetect @ 0x..] black_start:12 black_end:14 black_duration:2` (also printed at EOF). */
export function parseBlackdetect(log: FfmpegLog): RawSpan[] {
  const spans: RawSpan[] = [];
  for (const line of logLines(log)) {
    const match = /black_start:(\S+) black_end:(\S+)/.exec(line);
    const start = num(match?.[1]);
    const end = num(match?.[2]);
    if (start !== null && end !== null) spans.push({ startS: start, endS: end });
  }
  return spans;
}

/**
 * Start/end pairs of detectors that log them on separate lines; a start without an end is a
 * span the stream ended in (freezedetect 4.1 and silencedetect 4.1 print nothing at EOF).
 */
function parseStartEnd(log: FfmpegLog, start: RegExp, end: RegExp): RawSpan[] {
  const spans: RawSpan[] = [];
  let open: number | null = null;
  for (const line of logLines(log)) {
    const startValue = num(start.exec(line)?.[1]);
    if (startValue !== null) {
      open = startValue;
      continue;
    }
    const endValue = num(end.exec(line)?.[1]);
    if (endValue !== null && open !== null) {
      spans.push({ startS: open, endS: endValue });
      open = null;
    }
  }
  if (open !== null) spans.push({ startS: open, endS: null });
  return spans;
}

/** `lavfi.freezedetect.freeze_start: 22.2` ... `lavfi.freezedetect.freeze_end: 24` */
export function parseFreezedetect(log: FfmpegLog): RawSpan[] {
  return parseStartEnd(log, /freezedetect\.freeze_start: (\S+)/, /freezedetect\.freeze_end: (\S+)/);
}

/** `silence_start: 25` ... `silence_end: 28.0001 | silence_duration: 3.00013` */
export function parseSilencedetect(log: FfmpegLog): RawSpan[] {
  return parseStartEnd(log, /\] silence_start: (\S+)/, /\] silence_end: (\S+)/);
}

interface Ebur128Log {
  /** Momentary loudness (LUFS, 400 ms window) every 100 ms; `timeS` is the window's end. */
  momentary: TimedValue[];
  /** The summary's integrated loudness, or null when no summary was printed. */
  integratedLufs: number | null;
}

// `[Parsed_ebur128_9 @ 0x..] t: 28.8       TARGET:-23 LUFS    M: -34.2 S: -39.9     I:  -8.5 LUFS ...`
const EBUR128_FRAME = /^\[[^\]]*ebur128[^\]]*\] t:\s*(\S+)\s.*?\bM:\s*(\S+)\s/;

/**
 * ebur128's per-100 ms lines and its final summary. ffmpeg may print a summary for a probe
 * instance while configuring the graph (`I: -70.0 LUFS`), so the last summary wins.
 */
export function parseEbur128(log: FfmpegLog): Ebur128Log {
  const momentary: TimedValue[] = [];
  let integratedLufs: number | null = null;
  let inSummary = false;
  for (const line of logLines(log)) {
    const frame = EBUR128_FRAME.exec(line);
    if (frame) {
      const timeS = num(frame[1]);
      const value = num(frame[2]);
      if (timeS !== null && value !== null) momentary.push({ timeS, value });
      continue;
    }
    if (/ebur128[^\]]*\] Summary:/.test(line)) {
      inSummary = true;
      continue;
    }
    const integrated = inSummary ? /^\s+I:\s+(\S+) LUFS/.exec(line) : null;
    if (integrated) {
      integratedLufs = num(integrated[1]);
      inSummary = false;
    }
  }
  return { momentary, integratedLufs };
}
