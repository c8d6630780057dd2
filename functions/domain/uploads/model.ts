import type { MediaKind, UploadContentType } from '../../schemas/upload.js';

/** The states an upload is stored in; `expired` and `deleted` are derived on read (domain/uploads/uploads.ts). */
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
