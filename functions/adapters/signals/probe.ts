/** What the extractor needs to know about a source before building its filter graph. */
export interface ProbedStreams {
  /**
   * `bFrames`: the stream reorders frames (ffprobe `has_b_frames` > 0: H.264/HEVC with
   * B-frames), so `-skip_frame noref` leaves a chain of reference frames to decode.
   */
  video: { index: number; width: number; height: number; frameRate: number; bFrames: boolean } | null;
  audio: { index: number } | null;
}

interface FfprobeStream {
  index?: number;
  codec_type?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  has_b_frames?: number;
  disposition?: { attached_pic?: number };
  side_data_list?: { rotation?: number }[];
}

/** `"30000/1001"` → 29.97; `"0/0"` and garbage → null. */
export function parseRate(rate: string | undefined): number | null {
  const [num, den] = (rate ?? '').split('/').map(Number);
  if (num === undefined || !Number.isFinite(num) || num <= 0) return null;
  const value = den === undefined ? num : num / den;
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) / 1000 : null;
}

const quarterTurned = (stream: FfprobeStream) =>
  (stream.side_data_list ?? []).some((side) => side.rotation !== undefined && Math.abs(side.rotation) % 180 === 90);

/**
 * The first video stream that is a picture sequence (not cover art: an attached picture is one
 * frame) and the first audio stream, from `ffprobe -of json -show_entries stream=...`.
 */
export function parseProbe(json: string): ProbedStreams {
  const parsed = JSON.parse(json) as { streams?: FfprobeStream[] };
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1 && s.index !== undefined);
  const audio = streams.find((s) => s.codec_type === 'audio' && s.index !== undefined);
  return {
    video:
      video?.index === undefined
        ? null
        : {
            index: video.index,
            // Display size: a phone's portrait video is stored landscape with a 90° rotation.
            width: (quarterTurned(video) ? video.height : video.width) ?? 0,
            height: (quarterTurned(video) ? video.width : video.height) ?? 0,
            frameRate: parseRate(video.avg_frame_rate) ?? parseRate(video.r_frame_rate) ?? 0,
            bFrames: (video.has_b_frames ?? 0) > 0,
          },
    audio: audio?.index === undefined ? null : { index: audio.index },
  };
}
