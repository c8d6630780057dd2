/** SPEC "Upload flow": the only content types an upload may declare, matched exactly. */
export const videoContentTypes = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska'] as const;
export const audioContentTypes = [
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/x-wav',
  'audio/aiff',
  'audio/aac',
  'audio/ogg',
  'audio/flac',
  'audio/x-flac',
  'audio/mp4',
  'audio/x-m4a',
  'audio/webm',
  'audio/opus',
] as const;
export const uploadContentTypes = [...videoContentTypes, ...audioContentTypes] as const;
export type UploadContentType = (typeof uploadContentTypes)[number];
export const mediaKinds = ['video', 'audio'] as const;
export type MediaKind = (typeof mediaKinds)[number];

export const mediaKindOf = (contentType: UploadContentType): MediaKind => ((videoContentTypes as readonly string[]).includes(contentType) ? 'video' : 'audio');

/** What a reader sees: `expired` and `deleted` are derived from the stored state and the clock. */
export const uploadStatuses = ['pending', 'ready', 'failed', 'expired', 'deleted'] as const;
export type UploadStatus = (typeof uploadStatuses)[number];

/** The states an upload is stored in; `expired` and `deleted` are derived on read (domain/uploads/status.ts). */
export type StoredUploadStatus = 'pending' | 'ready' | 'failed';

/** Why an upload failed; every code fails closed and is documented in docs/uploads.md. */
export type UploadFailureCode =
  | 'size_mismatch'
  | 'unreadable_media'
  | 'truncated_media'
  | 'undecodable_media'
  | 'no_audio_stream'
  | 'no_video_stream'
  | 'unexpected_video_stream'
  | 'duration_exceeds_limit'
  | 'inspection_timeout';

export interface UploadFailure {
  code: UploadFailureCode;
  message: string;
}

/** One audio or video stream as the probe found it (stored and presented as is). */
export interface StreamSummary {
  index: number;
  type: MediaKind;
  codec: string;
  width: number | null;
  height: number | null;
  frame_rate: number | null;
  channels: number | null;
  sample_rate: number | null;
  attached_picture: boolean;
}

/** The S3 multipart upload behind an upload over the multipart threshold. */
export interface MultipartState {
  /** S3's UploadId: internal, never presented. */
  id: string;
  partSizeBytes: number;
  partCount: number;
}

export interface UploadRecord {
  uploadId: string;
  status: StoredUploadStatus;
  mediaKind: MediaKind;
  filename: string;
  contentType: UploadContentType;
  sizeBytes: number;
  /** Account-scoped media object key; never derived from the filename. */
  objectKey: string;
  multipart: MultipartState | null;
  /** Deadline of the signed upload target(s). */
  expiresAt: string;
  /** The account's retention when the upload was created. */
  retentionDays: number;
  /** Ready uploads: object creation + retentionDays; reads past it show `deleted`. */
  retentionExpiresAt: string | null;
  durationMs: number | null;
  streams: StreamSummary[] | null;
  error: UploadFailure | null;
  readyAt: string | null;
  failedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
