import type { SourceFacts } from '../../domain/sources/ports.js';
import { unreadable } from './verify-video.js';

/** yt-dlp's info dict (`--dump-single-json`; README "OUTPUT TEMPLATE", extractor/common.py): the fields we read. */
interface YtDlpFormat {
  vcodec?: string | null;
  filesize?: number | null;
  filesize_approx?: number | null;
}

export interface YtDlpInfo extends YtDlpFormat {
  _type?: string;
  title?: string | null;
  /** Seconds. */
  duration?: number | null;
  is_live?: boolean | null;
  live_status?: string | null;
  formats?: YtDlpFormat[] | null;
  /** The parts the format selection chose (video and audio) when they are merged. */
  requested_formats?: YtDlpFormat[] | null;
}

export function parseInfo(stdout: string): YtDlpInfo {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const info: unknown = JSON.parse(line);
    if (info && typeof info === 'object' && !Array.isArray(info)) return info;
  } catch {
    // Reported below without the output, which may carry media URLs.
  }
  throw unreadable('The provider answered with something other than a video description.');
}

export function factsOf(info: YtDlpInfo): SourceFacts {
  if (info._type === 'playlist' || info._type === 'multi_video') throw unreadable('The link names a playlist; give the link of one video.');
  if (info.is_live === true || ['is_live', 'is_upcoming', 'post_live'].includes(info.live_status ?? '')) {
    throw unreadable('Live streams cannot be analysed; give the link of a recorded video.');
  }
  // As yt-dlp's own `bv*` does: a format has video unless its vcodec is "none".
  const formats = info.formats?.length ? info.formats : [info];
  if (!formats.some((format) => format.vcodec !== 'none')) {
    throw unreadable('The source has no video stream; one-off analyses take video (audio-only sources are refused).');
  }
  const seconds = info.duration;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) throw unreadable('The provider does not say how long this video is.');
  return { mediaKind: 'video', durationMs: Math.round(seconds * 1000), sizeBytes: sizeOf(info), title: titleOf(info) };
}

const bytesOf = (format: YtDlpFormat): number | undefined => {
  const size = format.filesize ?? format.filesize_approx;
  return typeof size === 'number' && Number.isFinite(size) && size > 0 ? Math.round(size) : undefined;
};

/** The chosen parts' sizes summed when all are known, else the top-level estimate, else unknown. */
export function sizeOf(info: YtDlpInfo): number | null {
  const parts = (info.requested_formats ?? []).map(bytesOf);
  if (parts.length > 0 && parts.every((size) => size !== undefined)) return parts.reduce((sum: number, size) => sum + (size ?? 0), 0);
  return bytesOf(info) ?? null;
}

export const titleOf = (info: YtDlpInfo): string | null => (typeof info.title === 'string' && info.title.trim() ? info.title.trim().slice(0, 300) : null);

/** yt-dlp's last ERROR line without the `[extractor] id:` prefix (the id may be a share token) or any URL. */
export function providerMessage(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .filter((text) => text.startsWith('ERROR:'))
      .at(-1) ?? '';
  const reason = line
    .replace(/^ERROR:\s*/, '')
    .replace(/^\[[^\]]+\]\s+\S+:\s+/, '')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .trim()
    .slice(0, 300);
  return reason ? `The provider could not give this video: ${reason}` : 'The provider could not give this video.';
}
