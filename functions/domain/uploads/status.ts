/**
 * Uploads (SPEC "Upload"; DESIGN §3, §4): the status a reader sees, derived from the stored one, and
 * the gate runs pass. docs/uploads.md explains every rule here to integrators; keep the two in step.
 */
import { ApiError } from '../errors.js';
import type { UploadStore } from './ports.js';
import type { UploadRecord, UploadStatus } from './model.js';

/** The status a reader sees: `pending` past expires_at reads `expired`; `ready` past retention reads `deleted`. */
export function uploadStatusAt(upload: UploadRecord, now: Date): UploadStatus {
  if (upload.status === 'pending' && now.getTime() >= Date.parse(upload.expiresAt)) return 'expired';
  if (upload.status === 'ready' && upload.retentionExpiresAt && now.getTime() >= Date.parse(upload.retentionExpiresAt)) return 'deleted';
  return upload.status;
}

/**
 * The gate of scanner runs and batch items (DESIGN §4): 400 upload_not_found for an unknown or
 * foreign upload, 400 upload_not_ready for anything but a ready upload within retention.
 */
export function assertRunnableUpload(upload: UploadRecord | undefined, now: Date, param = 'upload_id'): asserts upload is UploadRecord {
  if (!upload) throw new ApiError('upload_not_found', 'No such upload.', param);
  const status = uploadStatusAt(upload, now);
  if (status !== 'ready') {
    const why: Record<Exclude<UploadStatus, 'ready'>, string> = {
      pending: 'it has not been completed yet (POST /v1/uploads/{upload_id}/complete)',
      expired: 'its upload target expired before it was completed',
      failed: `it failed (${upload.error?.code ?? 'failed'})`,
      deleted: 'its retention period has ended and the media was deleted',
    };
    throw new ApiError('upload_not_ready', `Upload ${upload.uploadId} is ${status}: ${why[status]}. Only a ready upload can be analyzed.`, param);
  }
}

/** Looks up the upload a run or batch item names and applies assertRunnableUpload (for the runs capability). */
export async function findRunnableUpload(
  uploads: Pick<UploadStore, 'get'>,
  accountId: string,
  uploadId: string,
  now = new Date(),
  param = 'upload_id',
): Promise<UploadRecord> {
  const upload = await uploads.get(accountId, uploadId);
  assertRunnableUpload(upload, now, param);
  return upload;
}
