/**
 * Uploads (SPEC "Upload", "Upload flow"; DESIGN §3): complete by probing the real stream layout.
 * docs/uploads.md explains every rule here to integrators; keep the two in step.
 */
import { ApiError } from '../errors.js';
import { limitsOf } from '../accounts/accounts.js';
import { announcement } from '../events/model.js';
import { DAY_MS, recordExpiry, retentionTags } from './retention.js';
import { planParts } from './parts.js';
import { uploadStatusAt } from './status.js';
import { getUpload } from './queries.js';
import type { Account } from '../accounts/model.js';
import type { UploadDeps } from './ports.js';
import type { MultipartState, StoredUploadStatus, UploadFailure, UploadRecord } from './model.js';

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
