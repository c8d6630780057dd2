/**
 * The probe classifier: pure functions from ffprobe's output to a verdict on an upload. The
 * ffprobe adapter (adapters/media/ffprobe-inspector.ts) runs three bounded stages and hands each
 * output here, so every rule below is unit-tested on recorded ffprobe JSON.
 *
 * 1. layout: `-show_format -show_streams` -> container readable? which streams? duration?
 * 2. head:   decode the first packets of one candidate stream (`-count_frames`, bounded by
 *            `-read_intervals %+#N`) -> is the media decodable? Attached pictures are never a
 *            candidate, so cover art is never decoded.
 * 3. tail:   read (not decode) the packets of the last seconds (`-read_intervals <end-5s>%...`)
 *            -> does the data reach the duration the container declares? A cut MP4 whose index
 *            (moov) comes first still probes, but its last samples point past the end of the file
 *            ("partial file"); a cut MP3/FLAC keeps the length its header declares while its
 *            packets stop early. Both fail as truncated_media.
 */
import type { StreamSummary, UploadFailure, UploadFailureCode, MediaKind } from './model.js';

// ---- ffprobe JSON (the parts we read) ---------------------------------------------------------

interface ProbeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  channels?: number;
  sample_rate?: string;
  start_time?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  nb_read_frames?: string;
  nb_read_packets?: string;
}

interface ProbeFormat {
  format_name?: string;
  start_time?: string;
  duration?: string;
  size?: string;
}

interface ProbePacket {
  stream_index?: number;
  pts_time?: string;
  dts_time?: string;
  duration_time?: string;
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: ProbeFormat;
  packets?: ProbePacket[];
  error?: { code?: number; string?: string };
}

/** One ffprobe run as the adapter saw it. */
export interface ProbeRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

// ---- verdicts -----------------------------------------------------------------------------

export interface LayoutPass {
  ok: true;
  durationMs: number;
  streams: StreamSummary[];
  /** Streams to try decoding, best first: the upload's kind, never an attached picture. */
  candidates: number[];
  /** Where the data should end, in the container's timestamps (seconds). */
  endSeconds: number;
  /** Where the tail read starts (seconds). */
  tailStartSeconds: number;
  /** Whether the container declares its length independently of the data (see assessTail). */
  lengthDeclared: boolean;
}

type Verdict = { ok: true } | { ok: false; error: UploadFailure };
type LayoutVerdict = LayoutPass | { ok: false; error: UploadFailure };

/** Seconds of media the tail read covers before the declared end. */
export const TAIL_SECONDS = 5;
/** How far before the declared end the data may stop (or 1% of the duration, if more). */
const TAIL_TOLERANCE_SECONDS = 0.5;
/** Packets decoded from the start of a candidate stream. */
export const HEAD_PACKETS = 50;

const fail = (code: UploadFailureCode, message: string): { ok: false; error: UploadFailure } => ({ ok: false, error: { code, message } });

/** Messages with which ffmpeg's demuxers report data that stops early. */
const truncationPattern = /partial file|moov atom not found|ended prematurely|end of file|truncat/i;
/** The probe could not fetch the object: a fault on our side, never a verdict on the media. */
const transportPattern = /server returned|connection refused|connection timed out|network is unreachable|failed to resolve/i;

export class ProbeTransportError extends Error {
  constructor(stage: string, detail: string) {
    super(`ffprobe could not read the media (${stage}): ${detail.slice(0, 500)}`);
    this.name = 'ProbeTransportError';
  }
}

/** Throws when ffprobe failed to fetch the bytes; a media verdict must not be drawn from that. */
export function assertTransportOk(stage: string, run: ProbeRun): void {
  if (transportPattern.test(run.stderr)) throw new ProbeTransportError(stage, run.stderr.trim());
}

const parse = (run: ProbeRun): ProbeOutput | undefined => {
  try {
    return JSON.parse(run.stdout) as ProbeOutput;
  } catch {
    return undefined;
  }
};

const seconds = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

const positiveInt = (value: number | string | undefined): number | null => {
  const n = typeof value === 'string' ? Number(value) : value;
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : null;
};

function frameRate(stream: ProbeStream): number | null {
  for (const rate of [stream.avg_frame_rate, stream.r_frame_rate]) {
    const [num, den] = (rate ?? '').split('/').map(Number);
    if (num !== undefined && den !== undefined && Number.isFinite(num) && Number.isFinite(den) && num > 0 && den > 0) {
      return Math.round((num / den) * 1000) / 1000;
    }
  }
  return null;
}

const isAttachedPicture = (stream: ProbeStream): boolean => stream.disposition?.attached_pic === 1;

export function summarizeStream(stream: ProbeStream): StreamSummary {
  const type = stream.codec_type as MediaKind;
  const attached = isAttachedPicture(stream);
  return {
    index: stream.index,
    type,
    codec: stream.codec_name ?? 'unknown',
    width: type === 'video' ? positiveInt(stream.width) : null,
    height: type === 'video' ? positiveInt(stream.height) : null,
    frame_rate: type === 'video' && !attached ? frameRate(stream) : null,
    channels: type === 'audio' ? positiveInt(stream.channels) : null,
    sample_rate: type === 'audio' ? positiveInt(stream.sample_rate) : null,
    attached_picture: attached,
  };
}

const hasCodec = (stream: ProbeStream): boolean => !!stream.codec_name && stream.codec_name !== 'none' && stream.codec_name !== 'unknown';

/** Containers whose length comes from the data itself: a cut file is just a shorter file. */
const lengthFromData = new Set(['aac', 'wav']);

/** Stage 1: the stream layout rules of SPEC "Upload flow" and the account's duration limit. */
export function classifyLayout(mediaKind: MediaKind, run: ProbeRun, maxDurationMs: number): LayoutVerdict {
  const output = run.exitCode === 0 ? parse(run) : undefined;
  if (!output?.format || output.error) {
    const detail = `${output?.error?.string ?? ''} ${run.stderr}`;
    if (truncationPattern.test(detail)) {
      return fail('truncated_media', 'The file ends before its media does (for MP4/MOV: the index is missing); upload the complete file.');
    }
    if (/format .* not on whitelist/i.test(detail)) {
      return fail('unreadable_media', 'The file is not in a supported audio or video container.');
    }
    return fail('unreadable_media', 'The file could not be read as audio or video.');
  }

  const streams = (output.streams ?? []).filter((s) => s.codec_type === 'audio' || s.codec_type === 'video');
  const audio = streams.filter((s) => s.codec_type === 'audio');
  const motion = streams.filter((s) => s.codec_type === 'video' && !isAttachedPicture(s));

  let candidates: ProbeStream[];
  if (mediaKind === 'audio') {
    const unexpected = motion[0];
    if (unexpected) {
      return fail(
        'unexpected_video_stream',
        `Stream ${unexpected.index} is video (${unexpected.codec_name ?? 'unknown codec'}); an audio upload may carry attached cover art but no video. Upload it as a video type instead.`,
      );
    }
    if (!audio.length) return fail('no_audio_stream', 'The file has no audio stream.');
    candidates = audio.filter((s) => hasCodec(s) && positiveInt(s.sample_rate) !== null && positiveInt(s.channels) !== null);
  } else {
    if (!motion.length) return fail('no_video_stream', 'The file has no video stream (attached cover art does not count).');
    candidates = motion.filter((s) => hasCodec(s) && positiveInt(s.width) !== null && positiveInt(s.height) !== null);
  }
  if (!candidates.length) return fail('undecodable_media', `No ${mediaKind} stream of the file has a codec that can be decoded.`);

  const format = output.format;
  const start = seconds(format.start_time) ?? 0;
  let duration = seconds(format.duration);
  if (duration === undefined || duration <= 0) {
    const ends = streams.map((s) => (seconds(s.start_time) ?? start) + (seconds(s.duration) ?? 0) - start);
    duration = Math.max(0, ...ends);
  }
  if (!(duration > 0)) return fail('unreadable_media', 'The duration of the media could not be determined.');
  const durationMs = Math.round(duration * 1000);
  if (durationMs > maxDurationMs) {
    return fail(
      'duration_exceeds_limit',
      `The media lasts ${formatMinutes(durationMs)} minutes; this account accepts at most ${formatMinutes(maxDurationMs)} minutes.`,
    );
  }

  const endSeconds = start + duration;
  return {
    ok: true,
    durationMs,
    streams: streams.map(summarizeStream),
    candidates: candidates.map((s) => s.index),
    endSeconds,
    tailStartSeconds: Math.max(start, endSeconds - TAIL_SECONDS),
    lengthDeclared: !(format.format_name ?? '').split(',').some((name) => lengthFromData.has(name)),
  };
}

const formatMinutes = (ms: number): string => String(Math.round((ms / 60_000) * 10) / 10);

/** Stage 2: did decoding the first packets of the candidate stream produce any frame? */
export function decodedFrames(run: ProbeRun): number {
  if (run.exitCode !== 0) return 0;
  const stream = parse(run)?.streams?.[0];
  return Number(stream?.nb_read_frames ?? 0) || 0;
}

export const undecodable = (mediaKind: MediaKind) =>
  fail('undecodable_media', `The ${mediaKind} stream could not be decoded; the file is damaged or uses an unsupported codec.`);

/** Stage 3: does the data reach the end the container declares? */
export function assessTail(layout: LayoutPass, run: ProbeRun): Verdict {
  const truncated = fail('truncated_media', 'The file ends before its media does; upload the complete file.');
  if (truncationPattern.test(run.stderr)) return truncated;
  if (run.exitCode !== 0) return fail('unreadable_media', 'The end of the media could not be read.');
  const packets = parse(run)?.packets ?? [];
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const packet of packets) {
    const at = seconds(packet.pts_time) ?? seconds(packet.dts_time);
    if (at === undefined) continue;
    lastEnd = Math.max(lastEnd, at + (seconds(packet.duration_time) ?? 0));
  }
  if (lastEnd === Number.NEGATIVE_INFINITY) return truncated;
  // Estimated or data-derived lengths are not a promise the data could break.
  if (!layout.lengthDeclared) return { ok: true };
  // Streams of one file end a few packets apart at most; a real cut is reported by the demuxer or is far larger.
  const tolerance = Math.max(TAIL_TOLERANCE_SECONDS, (layout.durationMs / 1000) * 0.01);
  return lastEnd >= layout.endSeconds - tolerance ? { ok: true } : truncated;
}
