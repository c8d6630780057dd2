/**
 * Uploads (SPEC "Upload", "Upload flow"; DESIGN §3): create a signed target, one PUT or multipart
 * parts. docs/uploads.md explains every rule here to integrators; keep the two in step.
 */
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { limitsOf } from '../accounts/accounts.js';
import { recordExpiry, retentionTags } from './retention.js';
import { planParts } from './parts.js';
import type { Account } from '../accounts/model.js';
import type { SignedPart, SignedTarget, UploadDeps } from './ports.js';
import { mediaKindOf, type MultipartState, type UploadContentType, type UploadRecord } from './model.js';

/** A single signed PUT must be started within this window (SPEC: time-limited signed target). */
export const UPLOAD_TARGET_TTL_SECONDS = 15 * 60;
/**
 * Multipart part targets get longer: each part must be *started* before expires_at, and a few GiB
 * sent part after part take far more than 15 minutes on an ordinary uplink.
 */
export const MULTIPART_TARGET_TTL_SECONDS = 6 * 60 * 60;

/** The signed targets of a new upload; returned once by POST /v1/uploads and never stored. */
export type UploadTargets = { kind: 'single'; target: SignedTarget } | { kind: 'multipart'; parts: SignedPart[] };

/** Account-scoped, never derived from the filename. */
export const mediaObjectKey = (accountId: string, uploadId: string): string => `accounts/${accountId}/uploads/${uploadId}`;

/** POST /v1/uploads as validated at the edge; the size against the account's limit is checked here. */
interface UploadCreate {
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
