/**
 * What the signal stage measures of one source (DESIGN §7 stage 1). Analyzers answer only from
 * this, so it is the whole evidence an observation can cite. All times are milliseconds from
 * the start of the source (not of the window).
 */
import type { MediaKind } from '../uploads/model.js';
import type { Still, VisualSignals } from './visual.js';

export interface Span {
  startMs: number;
  endMs: number;
}

/** A measured level over a span, normalised to 0..1 (0 = none, 1 = the strongest seen). */
export interface LevelSpan extends Span {
  level: number;
}

export interface VideoSignals {
  width: number;
  height: number;
  frameRate: number;
  /**
   * Scene changes: hard cuts (where the scene-change score crossed the threshold; not a flash)
   * and gradual ones (dissolves, fades, wipes), dated at their middle.
   */
  sceneCuts: { atMs: number; score: number }[];
  /** Motion per bucket (about 1 s): mean frame-to-frame difference, normalised. */
  motion: LevelSpan[];
  /** Spans of (near) black picture. */
  black: Span[];
  /** Spans where the picture did not change. */
  frozen: Span[];
  /** Mean colour of the analysed picture, `#rrggbb`. */
  dominantColor: string | null;
  /** What was seen in sampled frames (visual.ts); null where no detector ran. */
  visual: VisualSignals | null;
}

export interface AudioSignals {
  /** Loudness per bucket (about 0.5 s) in LUFS (momentary, EBU R128); -120 for digital silence. */
  loudness: { atMs: number; lufs: number }[];
  integratedLufs: number | null;
  /** Short spans clearly louder than their surroundings (bursts, peaks). */
  loudPeaks: LevelSpan[];
  silence: Span[];
  /**
   * Speech-like activity: energy above the steady background concentrated in the speech band,
   * with syllable-rate modulation. May overlap `music` and `loudPeaks`.
   */
  speech: Span[];
  /** Sustained tonal content (music-like tone), also where other sound plays over it. */
  music: Span[];
}

export interface TranscriptWord extends Span {
  text: string;
}

export interface TranscriptSegment extends Span {
  text: string;
  speaker: string | null;
  words: TranscriptWord[];
}

export interface SourceSignals {
  mediaKind: MediaKind;
  durationMs: number;
  /** The analysed range (a find_moments window, a chunk, or the whole source). */
  window: Span;
  video: VideoSignals | null;
  audio: AudioSignals | null;
  transcript: TranscriptSegment[] | null;
}

/** What one extraction gives: the measurements, and sampled frames for analyzers that look at pictures. */
export interface ExtractedSignals {
  signals: SourceSignals;
  stills: Still[];
}

/** Port: measures a source. The ffmpeg adapter reads it over a (signed) URL. */
export interface SignalExtractor {
  extract(input: { url: string; mediaKind: MediaKind; durationMs: number; window: Span }): Promise<ExtractedSignals>;
}

/**
 * Port: speech to text. `none` (the local default) answers null. It gets the source both as a
 * (signed) URL and as its key in the media bucket, for engines that read the bucket themselves,
 * and answers the segments that start in the window.
 */
export interface Transcriber {
  transcribe(input: { url: string; objectKey: string; window: Span }): Promise<TranscriptSegment[] | null>;
}

/**
 * Port: speech to text as a job that runs outside the workflow's steps (Amazon Transcribe). The
 * signals step stages the window's audio beside its signals; the workflow then asks for the
 * transcript between waits of its own, so no function is held while the job runs and a step that
 * is retried never throws away finished signals.
 */
export interface TranscriptionJobs {
  /** Writes the window's audio where the job reads it: false when the window has no audio (nothing to transcribe). */
  stageAudio(input: { url: string; objectKey: string; window: Span }): Promise<boolean>;
  /**
   * Starts the window's job over the staged audio if it has none; the segments (times in the
   * source) once it is done, null while it runs or waits for capacity.
   */
  transcript(input: { objectKey: string; window: Span }): Promise<TranscriptSegment[] | null>;
}

/** Where speech comes from: a transcriber answering within the signals step, or a job the workflow waits for. */
export type Speech = Transcriber | TranscriptionJobs;

export const transcribesByJob = (speech: Speech): speech is TranscriptionJobs => 'stageAudio' in speech;
