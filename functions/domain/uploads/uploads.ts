/**
 * Uploads (SPEC "Upload", "Upload flow"; DESIGN §3): create a signed target, complete by probing
 * the real stream layout, read with derived states. docs/uploads.md explains every rule here to
 * integrators; keep the two in step.
 */
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { limitsOf } from '../accounts/accounts.js';
import { announcement } from '../events/model.js';
import { retentionTags, UPLOAD_RECORD_GRACE_DAYS } from './retention.js';
import type { Account } from '../accounts/model.js';
import type { MediaInspector, MediaStore, PartPlan, SignedPart, SignedTarget, UploadStore } from './ports.js';
import {
  mediaKindOf,
  type MultipartState,
  type StoredUploadStatus,
  type UploadContentType,
  type UploadFailure,
  type UploadRecord,
  type UploadStatus,
} from './model.js';
import type { Page, PageRequest } from '../pages.js';

/** A single signed PUT must be started within this window (SPEC: time-limited signed target). */
export const UPLOAD_TARGET_TTL_SECONDS = 15 * 60;
/**
 * Multipart part targets get longer: each part must be *started* before expires_at, and a few GiB
 * sent part after part take far more than 15 minutes on an ordinary uplink.
 */
export const MULTIPART_TARGET_TTL_SECONDS = 6 * 60 * 60;
/** S3: at most 10,000 parts, each but the last at least 5 MiB. */
const MAX_PARTS = 10_000;

const DAY_MS = 86_400_000;

export interface UploadDeps {
  uploads: UploadStore;
  media: MediaStore;
  inspector: MediaInspector;
  /** Uploads above this many bytes get multipart part targets instead of one PUT. */
  multipartThresholdBytes: number;
  partSizeBytes: number;
  /** Where problems that must not fail the request (cleanup) are reported. */
  warn: (message: string, error: unknown) => void;
}

/** The signed targets of a new upload; returned once by POST /v1/uploads and never stored. */
export type UploadTargets = { kind: 'single'; target: SignedTarget } | { kind: 'multipart'; parts: SignedPart[] };

/** Account-scoped, never derived from the filename. */
export const mediaObjectKey = (accountId: string, uploadId: string): string => `accounts/${accountId}/uploads/${uploadId}`;

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

/** Equal parts of `partSizeBytes` (grown if needed to stay within S3's part count), the last one shorter. */
export function planParts(sizeBytes: number, partSizeBytes: number): PartPlan[] {
  const partSize = Math.max(partSizeBytes, Math.ceil(sizeBytes / MAX_PARTS));
  const count = Math.ceil(sizeBytes / partSize);
  return Array.from({ length: count }, (_, i) => ({
    partNumber: i + 1,
    sizeBytes: i < count - 1 ? partSize : sizeBytes - partSize * (count - 1),
  }));
}

const epochSeconds = (iso: string, plusDays = 0): number => Math.ceil((Date.parse(iso) + plusDays * DAY_MS) / 1000);

/** When the table may drop the record: some time after nobody can use it any more. */
export function recordExpiry(upload: UploadRecord): number {
  const end = upload.retentionExpiresAt ?? upload.failedAt ?? upload.expiresAt;
  return epochSeconds(end, UPLOAD_RECORD_GRACE_DAYS);
}

/** POST /v1/uploads as validated at the edge; the size against the account's limit is checked here. */
export interface UploadCreate {
  filename: string;
  content_type: UploadContentType;
  size_bytes: number;
}

export async function createUpload(
  deps: UploadDeps,
  account: Account,
  input: UploadCreate,
  now = new Date(),
): Promise<{ upload: UploadRecord; targets: UploadTargets }> {
  const mediaKind = mediaKindOf(input.content_type);
  const limits = limitsOf(account);
  const maxBytes = mediaKind === 'video' ? limits.maxVideoBytes : limits.maxAudioBytes;
  if (input.size_bytes > maxBytes) {
    throw new ApiError(
      'validation_failed',
      `size_bytes: ${mediaKind} uploads are limited to ${maxBytes} bytes on this account (GET /v1/account shows the limits).`,
      'size_bytes',
    );
  }

  const uploadId = newId('upload');
  const objectKey = mediaObjectKey(account.accountId, uploadId);
  const tags = retentionTags(limits.retentionDays);
  const createdAt = now.toISOString();

  let targets: UploadTargets;
  let multipart: MultipartState | null = null;
  let expiresAt: Date;
  if (input.size_bytes > deps.multipartThresholdBytes) {
    expiresAt = new Date(now.getTime() + MULTIPART_TARGET_TTL_SECONDS * 1000);
    const plan = planParts(input.size_bytes, deps.partSizeBytes);
    const id = await deps.media.createMultipart(objectKey, input.content_type, tags);
    multipart = { id, partSizeBytes: plan[0]?.sizeBytes ?? input.size_bytes, partCount: plan.length };
    targets = { kind: 'multipart', parts: await deps.media.signParts(objectKey, id, plan, expiresAt) };
  } else {
    expiresAt = new Date(now.getTime() + UPLOAD_TARGET_TTL_SECONDS * 1000);
    targets = { kind: 'single', target: await deps.media.signPut(objectKey, input.content_type, tags, expiresAt) };
  }

  const upload: UploadRecord = {
    uploadId,
    status: 'pending',
    mediaKind,
    filename: input.filename,
    contentType: input.content_type,
    sizeBytes: input.size_bytes,
    objectKey,
    multipart,
    expiresAt: expiresAt.toISOString(),
    retentionDays: limits.retentionDays,
    retentionExpiresAt: null,
    durationMs: null,
    streams: null,
    error: null,
    readyAt: null,
    failedAt: null,
    createdAt,
    updatedAt: createdAt,
  };
  await deps.uploads.create(account.accountId, upload, recordExpiry(upload));
  return { upload, targets };
}

export async function getUpload(deps: Pick<UploadDeps, 'uploads'>, accountId: string, uploadId: string): Promise<UploadRecord> {
  const upload = await deps.uploads.get(accountId, uploadId);
  if (!upload) throw notFound('upload');
  return upload;
}

/** How long the console's player may read an upload's private source through one signed URL. */
export const MEDIA_URL_SECONDS = 300;

/** A signed GET of a ready upload's private source (the console's player): 404 for another account's, 400 upload_not_ready before it is ready. */
export async function signUploadMedia(
  deps: Pick<UploadDeps, 'uploads' | 'media'>,
  accountId: string,
  uploadId: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: Date; contentType: UploadContentType }> {
  const upload = await getUpload(deps, accountId, uploadId);
  assertRunnableUpload(upload, now);
  const url = await deps.media.signGet(upload.objectKey, MEDIA_URL_SECONDS);
  return { url, expiresAt: new Date(now.getTime() + MEDIA_URL_SECONDS * 1000), contentType: upload.contentType };
}

export function listUploads(
  deps: Pick<UploadDeps, 'uploads'>,
  accountId: string,
  page: PageRequest,
  status: UploadStatus | undefined,
  now = new Date(),
): Promise<Page<UploadRecord>> {
  return deps.uploads.list(accountId, page, status ? (upload) => uploadStatusAt(upload, now) === status : undefined);
}

const objectMissing = (upload: UploadRecord, now: Date, detail: string): ApiError => {
  const expired = uploadStatusAt(upload, now) === 'expired';
  return new ApiError(
    'upload_object_missing',
    expired
      ? `${detail} The upload target expired at ${upload.expiresAt}, so the bytes can no longer be sent: create a new upload.`
      : `${detail} Send the bytes to the upload target, then complete again; this is safe to retry.`,
  );
};

/**
 * POST /v1/uploads/{upload_id}/complete. A pending upload whose bytes exist is checked (size,
 * then the ffprobe inspection) and moves to ready or failed in one conditional write; anything
 * already terminal is returned as it is, without probing again.
 */
export async function completeUpload(deps: UploadDeps, account: Account, uploadId: string, now = new Date()): Promise<UploadRecord> {
  const accountId = account.accountId;
  const upload = await getUpload(deps, accountId, uploadId);
  if (upload.status !== 'pending') return upload;

  if (upload.multipart) {
    const failure = await finishMultipart(deps, upload, upload.multipart, now);
    if (failure) return settle(deps, accountId, upload, { ok: false, error: failure }, now);
  }

  const stored = await deps.media.head(upload.objectKey);
  if (!stored) throw objectMissing(upload, now, 'The upload has no bytes yet.');
  if (stored.sizeBytes !== upload.sizeBytes) {
    return settle(
      deps,
      accountId,
      upload,
      {
        ok: false,
        error: {
          code: 'size_mismatch',
          message: `The stored object has ${stored.sizeBytes} bytes but the upload declared size_bytes ${upload.sizeBytes}.`,
        },
      },
      now,
    );
  }

  const limits = limitsOf(account);
  const url = await deps.media.signGet(upload.objectKey, 15 * 60);
  const inspection = await deps.inspector.inspect(url, upload.mediaKind, { maxDurationMs: limits.maxSourceMinutes * 60_000 });
  if (!inspection.ok) return settle(deps, accountId, upload, inspection, now);

  // Tag before the state change (idempotent): a ready object is always under a lifecycle rule,
  // also where the signed x-amz-tagging header of the PUT is not honoured (s3rver).
  await deps.media.tag(upload.objectKey, retentionTags(upload.retentionDays));
  return settle(
    deps,
    accountId,
    upload,
    {
      ok: true,
      durationMs: inspection.durationMs,
      streams: inspection.streams,
      // S3 lifecycle counts from object creation, so retention does too.
      retentionExpiresAt: new Date(stored.lastModified.getTime() + upload.retentionDays * DAY_MS).toISOString(),
    },
    now,
  );
}

/** Checks the parts and completes the multipart upload; a failure to record, or undefined. */
async function finishMultipart(deps: UploadDeps, upload: UploadRecord, multipart: MultipartState, now: Date): Promise<UploadFailure | undefined> {
  const parts = await deps.media.listParts(upload.objectKey, multipart.id);
  // Gone: an earlier or concurrent completion finished it (the object exists), or it was aborted.
  if (!parts) return undefined;
  const plan = planParts(upload.sizeBytes, multipart.partSizeBytes);
  const received = new Map(parts.map((part) => [part.partNumber, part]));
  const missing = plan.filter((part) => !received.has(part.partNumber)).map((part) => part.partNumber);
  if (missing.length) {
    const shown = missing.length > 10 ? `${missing.slice(0, 10).join(', ')}, ...` : missing.join(', ');
    throw objectMissing(upload, now, `${missing.length} of ${plan.length} parts have not been uploaded (part ${shown}).`);
  }
  const wrong = parts.find((part) => part.partNumber > plan.length || part.sizeBytes !== plan[part.partNumber - 1]?.sizeBytes);
  if (wrong) {
    await deps.media.abortMultipart(upload.objectKey, multipart.id).catch((error: unknown) => deps.warn('Could not abort a multipart upload', error));
    const expected = plan[wrong.partNumber - 1]?.sizeBytes;
    return {
      code: 'size_mismatch',
      message:
        expected === undefined
          ? `Part ${wrong.partNumber} was not asked for: this upload has ${plan.length} parts.`
          : `Part ${wrong.partNumber} has ${wrong.sizeBytes} bytes but should have ${expected} (see upload_parts[].size_bytes).`,
    };
  }
  await deps.media.completeMultipart(
    upload.objectKey,
    multipart.id,
    parts.sort((a, b) => a.partNumber - b.partNumber),
  );
  return undefined;
}

type Outcome = { ok: true; durationMs: number; streams: UploadRecord['streams']; retentionExpiresAt: string } | { ok: false; error: UploadFailure };

/** The one conditional pending -> ready|failed write, then its side effects, by the winner only. */
async function settle(deps: UploadDeps, accountId: string, upload: UploadRecord, outcome: Outcome, now: Date): Promise<UploadRecord> {
  const at = now.toISOString();
  const status: StoredUploadStatus = outcome.ok ? 'ready' : 'failed';
  const next: UploadRecord = {
    ...upload,
    status,
    updatedAt: at,
    ...(outcome.ok
      ? { durationMs: outcome.durationMs, streams: outcome.streams, retentionExpiresAt: outcome.retentionExpiresAt, readyAt: at }
      : { error: outcome.error, failedAt: at }),
  };
  // upload.ready / upload.failed goes into the outbox in the same write as the transition.
  const announcements = [announcement(outcome.ok ? 'upload.ready' : 'upload.failed', { kind: 'upload', uploadId: upload.uploadId }, at)];
  if (!(await deps.uploads.finish(accountId, next, recordExpiry(next), announcements))) {
    // Another completion won the race; its result is the answer.
    return getUpload(deps, accountId, upload.uploadId);
  }
  if (!outcome.ok) {
    // A failed upload can never be used, so its bytes are not kept (SPEC: audio is private input).
    await deps.media.remove(upload.objectKey).catch((error: unknown) => deps.warn('Could not delete the object of a failed upload', error));
  }
  return next;
}
