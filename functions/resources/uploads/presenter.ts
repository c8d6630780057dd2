import { uploadStatusAt } from '../../domain/uploads/status.js';
import type { UploadTargets } from '../../domain/uploads/create.js';
import type { UploadRecord } from '../../domain/uploads/model.js';
import type { UploadResource } from './response.js';

/**
 * An upload as GET returns it. The signed targets (upload_method, upload_url, upload_headers,
 * upload_parts) are secrets handed out once, by POST /v1/uploads; everywhere else they are null.
 * Over the multipart threshold there is no single target: upload_parts lists one PUT per part.
 */
export function presentUpload(upload: UploadRecord, now: Date, targets?: UploadTargets): UploadResource {
  const single = targets?.kind === 'single' ? targets.target : undefined;
  const parts = targets?.kind === 'multipart' ? targets.parts : undefined;
  return {
    object: 'upload' as const,
    upload_id: upload.uploadId,
    status: uploadStatusAt(upload, now),
    media_kind: upload.mediaKind,
    filename: upload.filename,
    content_type: upload.contentType,
    size_bytes: upload.sizeBytes,
    upload_method: single?.method ?? null,
    upload_url: single?.url ?? null,
    upload_headers: single ? { ...single.headers } : parts ? {} : null,
    upload_parts: parts?.map((part) => ({ part_number: part.partNumber, upload_url: part.url, size_bytes: part.sizeBytes })) ?? null,
    expires_at: upload.expiresAt,
    duration_ms: upload.durationMs,
    streams:
      upload.streams?.map((s) => ({
        index: s.index,
        type: s.type,
        codec: s.codec,
        width: s.width,
        height: s.height,
        frame_rate: s.frame_rate,
        channels: s.channels,
        sample_rate: s.sample_rate,
        attached_picture: s.attached_picture,
      })) ?? null,
    error: upload.error ? { code: upload.error.code, message: upload.error.message } : null,
    retention_expires_at: upload.retentionExpiresAt,
    ready_at: upload.readyAt,
    failed_at: upload.failedAt,
    created_at: upload.createdAt,
    updated_at: upload.updatedAt,
  };
}
