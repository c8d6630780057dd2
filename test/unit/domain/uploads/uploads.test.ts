import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../functions/domain/errors.js';
import { assertRunnableUpload, findRunnableUpload, uploadStatusAt } from '../../../../functions/domain/uploads/status.js';
import { completeUpload } from '../../../../functions/domain/uploads/complete.js';
import { createUpload, mediaObjectKey, MULTIPART_TARGET_TTL_SECONDS, UPLOAD_TARGET_TTL_SECONDS } from '../../../../functions/domain/uploads/create.js';
import { planParts } from '../../../../functions/domain/uploads/parts.js';
import { recordExpiry } from '../../../../functions/domain/uploads/retention.js';
import { presentUpload } from '../../../../functions/resources/uploads/presenter.js';
import type { UploadRecord } from '../../../../functions/domain/uploads/model.js';
import { announcement } from '../../../../functions/domain/events/model.js';
import { ACCOUNT_ID, testAccount, uploadRecord } from '../../../helpers/unit-fixtures.js';
import { fakeDeps } from '../../uploads/fakes.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const NOW = new Date('2026-03-01T10:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

const apiError = async (promise: Promise<unknown>): Promise<ApiError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

const syncApiError = (fn: () => void): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('createUpload', () => {
  it('creates a pending upload with a signed PUT that carries content-type and the retention tag', async () => {
    const { deps, uploads } = fakeDeps();
    const { upload, targets } = await createUpload(
      deps,
      testAccount({ plan: 'beginner' }),
      { filename: 'talk.mp3', content_type: 'audio/mpeg', size_bytes: 1234 },
      NOW,
    );

    expect(upload).toMatchObject({
      status: 'pending',
      mediaKind: 'audio',
      filename: 'talk.mp3',
      contentType: 'audio/mpeg',
      sizeBytes: 1234,
      objectKey: mediaObjectKey(ACCOUNT_ID, upload.uploadId),
      multipart: null,
      expiresAt: later(UPLOAD_TARGET_TTL_SECONDS * 1000).toISOString(),
      retentionDays: 7,
    });
    expect(upload.uploadId).toMatch(/^upl_[0-9a-f]{32}$/);
    expect(upload.objectKey).toBe(`accounts/${ACCOUNT_ID}/uploads/${upload.uploadId}`);
    expect(targets).toMatchObject({
      kind: 'single',
      target: { method: 'PUT', headers: { 'content-type': 'audio/mpeg', 'x-amz-tagging': 'retention-days=7' } },
    });
    // The record's TTL is some time after the target expires (nobody can use it past then).
    expect(uploads.records.get(`${ACCOUNT_ID}/${upload.uploadId}`)?.ttl).toBe(recordExpiry(upload));
    expect(recordExpiry(upload)).toBe(Math.ceil((NOW.getTime() + 15 * 60_000 + 30 * 86_400_000) / 1000));
  });

  it('never derives the object key from the filename', async () => {
    const { deps } = fakeDeps();
    const { upload } = await createUpload(deps, testAccount(), { filename: '..%2F..%2Fetc passwd.mp4', content_type: 'video/mp4', size_bytes: 10 }, NOW);
    expect(upload.objectKey).not.toContain('passwd');
  });

  it.each([
    ['video', 'video/mp4', 8 * GiB],
    ['audio', 'audio/wav', 2 * GiB],
  ] as const)('accepts %s up to the account limit and refuses one byte more (param size_bytes)', async (_kind, contentType, limit) => {
    const { deps } = fakeDeps();
    await expect(createUpload(deps, testAccount(), { filename: 'f', content_type: contentType, size_bytes: limit }, NOW)).resolves.toBeDefined();
    const error = await apiError(createUpload(deps, testAccount(), { filename: 'f', content_type: contentType, size_bytes: limit + 1 }, NOW));
    expect(error).toMatchObject({ code: 'validation_failed', param: 'size_bytes', status: 400 });
  });

  it('honours contracted limit overrides', async () => {
    const { deps } = fakeDeps();
    const account = testAccount({ plan: 'enterprise', limitOverrides: { maxVideoBytes: 10 * GiB } });
    await expect(createUpload(deps, account, { filename: 'f', content_type: 'video/mp4', size_bytes: 10 * GiB }, NOW)).resolves.toBeDefined();
  });

  it('over the multipart threshold signs one PUT per part instead of a single target', async () => {
    const { deps, media } = fakeDeps();
    const size = 5 * GiB + 1;
    const { upload, targets } = await createUpload(deps, testAccount(), { filename: 'big.mkv', content_type: 'video/x-matroska', size_bytes: size }, NOW);

    expect(targets.kind).toBe('multipart');
    const parts = targets.kind === 'multipart' ? targets.parts : [];
    expect(parts).toHaveLength(11);
    expect(parts.slice(0, 10).every((p) => p.sizeBytes === 512 * MiB)).toBe(true);
    expect(parts.at(-1)?.sizeBytes).toBe(size - 10 * 512 * MiB);
    expect(parts.map((p) => p.partNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(upload.multipart).toEqual({ id: 'mp-1', partSizeBytes: 512 * MiB, partCount: 11 });
    expect(upload.expiresAt).toBe(later(MULTIPART_TARGET_TTL_SECONDS * 1000).toISOString());
    expect(media.multiparts.get('mp-1')?.tags).toEqual({ 'retention-days': '90' });

    const presented = presentUpload(upload, NOW, targets);
    expect(presented).toMatchObject({ upload_method: null, upload_url: null, upload_headers: {} });
    expect(presented.upload_parts?.[0]).toEqual({ part_number: 1, upload_url: expect.stringContaining('partNumber=1') as string, size_bytes: 512 * MiB });
  });

  it('exactly at the threshold is still one PUT', async () => {
    const { deps } = fakeDeps();
    const { targets } = await createUpload(deps, testAccount(), { filename: 'f', content_type: 'video/mp4', size_bytes: 5 * GiB }, NOW);
    expect(targets.kind).toBe('single');
  });
});

describe('planParts', () => {
  it('keeps the part count within S3 limits by growing the part size', () => {
    expect(planParts(10 * GiB, 512 * MiB)).toHaveLength(20);
    const huge = planParts(6 * 1024 * GiB, 5 * MiB);
    expect(huge.length).toBeLessThanOrEqual(10_000);
    expect(huge.reduce((sum, p) => sum + p.sizeBytes, 0)).toBe(6 * 1024 * GiB);
  });
});

describe('completeUpload', () => {
  async function pending(contentType: 'audio/mpeg' | 'video/mp4' = 'audio/mpeg', size = 1000, plan: 'creator' | 'beginner' = 'creator') {
    const ctx = fakeDeps();
    const account = testAccount({ plan });
    const { upload } = await createUpload(ctx.deps, account, { filename: 'a', content_type: contentType, size_bytes: size }, NOW);
    return { ...ctx, account, upload };
  }

  it('answers 409 upload_object_missing before the bytes exist, and stays pending', async () => {
    const { deps, account, upload, uploads } = await pending();
    const error = await apiError(completeUpload(deps, account, upload.uploadId, later(1000)));
    expect(error).toMatchObject({ code: 'upload_object_missing', status: 409 });
    expect(error.message).toMatch(/safe to retry/);
    expect((await uploads.get(ACCOUNT_ID, upload.uploadId))?.status).toBe('pending');
  });

  it('probes through a signed GET URL and moves to ready with the streams, tag and retention deadline', async () => {
    const { deps, account, upload, media, inspector, uploads } = await pending('audio/mpeg', 1000, 'beginner');
    media.objects.set(upload.objectKey, { size: 1000, lastModified: new Date('2026-03-01T10:05:00.000Z') });

    const ready = await completeUpload(deps, account, upload.uploadId, later(600_000));
    expect(ready).toMatchObject({
      status: 'ready',
      durationMs: 3000,
      readyAt: later(600_000).toISOString(),
      retentionExpiresAt: '2026-03-08T10:05:00.000Z',
    });
    expect(inspector.urls).toEqual([`https://bucket.example/${upload.objectKey}?signed-get`]);
    expect(media.objects.get(upload.objectKey)?.tags).toEqual({ 'retention-days': '7' });
    // upload.ready goes into the outbox with the transition, at the moment it happened.
    expect(uploads.announced).toEqual([announcement('upload.ready', { kind: 'upload', uploadId: upload.uploadId }, ready.readyAt!)]);
    expect(uploads.announced[0]?.eventId).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it('fails size_mismatch without probing, deletes the bytes and emits upload.failed', async () => {
    const { deps, account, upload, media, inspector, uploads } = await pending();
    media.objects.set(upload.objectKey, { size: 999, lastModified: NOW });
    const failed = await completeUpload(deps, account, upload.uploadId, later(1000));
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'size_mismatch' }, failedAt: later(1000).toISOString() });
    expect(failed.error?.message).toContain('999');
    expect(inspector.urls).toHaveLength(0);
    expect(media.removed).toEqual([upload.objectKey]);
    expect(uploads.announced.map((a) => a.type)).toEqual(['upload.failed']);
  });

  it('records the inspection failure as the upload error', async () => {
    const { deps, account, upload, media, inspector } = await pending();
    media.objects.set(upload.objectKey, { size: 1000, lastModified: NOW });
    inspector.verdict = { ok: false, error: { code: 'unexpected_video_stream', message: 'Stream 1 is video.' } };
    await expect(completeUpload(deps, account, upload.uploadId, later(1000))).resolves.toMatchObject({
      status: 'failed',
      error: { code: 'unexpected_video_stream', message: 'Stream 1 is video.' },
      durationMs: null,
      streams: null,
    });
  });

  it('returns a terminal upload as it is, without probing or announcing again', async () => {
    const { deps, account, upload, media, inspector, uploads } = await pending();
    media.objects.set(upload.objectKey, { size: 1000, lastModified: NOW });
    const first = await completeUpload(deps, account, upload.uploadId, later(1000));
    const second = await completeUpload(deps, account, upload.uploadId, later(2000));
    expect(second).toEqual(first);
    expect(inspector.urls).toHaveLength(1);
    expect(uploads.announced).toHaveLength(1);
  });

  it('a completion that loses the race returns the winner, with no side effects of its own', async () => {
    const { deps, account, upload, media, uploads } = await pending();
    media.objects.set(upload.objectKey, { size: 1000, lastModified: NOW });
    const winner: UploadRecord = { ...upload, status: 'failed', error: { code: 'unreadable_media', message: 'x' }, failedAt: NOW.toISOString() };
    uploads.raceWinner = winner;
    await expect(completeUpload(deps, account, upload.uploadId, later(1000))).resolves.toEqual(winner);
    expect(uploads.announced).toHaveLength(0);
    expect(media.removed).toHaveLength(0);
  });

  it('after expiry: no bytes is 409 saying the target expired; bytes sent in time still complete', async () => {
    const { deps, account, upload, media } = await pending();
    const afterExpiry = later(UPLOAD_TARGET_TTL_SECONDS * 1000 + 1);
    const error = await apiError(completeUpload(deps, account, upload.uploadId, afterExpiry));
    expect(error).toMatchObject({ code: 'upload_object_missing' });
    expect(error.message).toMatch(/expired at .* create a new upload/);

    media.objects.set(upload.objectKey, { size: 1000, lastModified: later(60_000) });
    await expect(completeUpload(deps, account, upload.uploadId, afterExpiry)).resolves.toMatchObject({ status: 'ready' });
  });

  it('404s an unknown or foreign upload', async () => {
    const { deps, account, upload } = await pending();
    await expect(apiError(completeUpload(deps, account, 'upl_nope', NOW))).resolves.toMatchObject({ code: 'not_found', status: 404 });
    const other = testAccount({ accountId: 'acct_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c' });
    await expect(apiError(completeUpload(deps, other, upload.uploadId, NOW))).resolves.toMatchObject({ code: 'not_found' });
  });

  describe('multipart', () => {
    async function multipartUpload() {
      const ctx = fakeDeps({ multipartThresholdBytes: 10 * MiB, partSizeBytes: 5 * MiB });
      const account = testAccount();
      const size = 12 * MiB;
      const { upload } = await createUpload(ctx.deps, account, { filename: 'm', content_type: 'video/mp4', size_bytes: size }, NOW);
      return { ...ctx, account, upload, size };
    }

    it('lists the parts server-side, completes with their ETags in order, then probes', async () => {
      const { deps, account, upload, media } = await multipartUpload();
      media.putPart('mp-1', 3, 2 * MiB);
      media.putPart('mp-1', 1, 5 * MiB);
      media.putPart('mp-1', 2, 5 * MiB);
      await expect(completeUpload(deps, account, upload.uploadId, later(1000))).resolves.toMatchObject({ status: 'ready' });
      expect(media.calls).toContain('completeMultipart 1,2,3');
    });

    it('names the missing parts in a 409 and leaves the upload pending', async () => {
      const { deps, account, upload, media, uploads } = await multipartUpload();
      media.putPart('mp-1', 1, 5 * MiB);
      const error = await apiError(completeUpload(deps, account, upload.uploadId, later(1000)));
      expect(error).toMatchObject({ code: 'upload_object_missing' });
      expect(error.message).toContain('2 of 3 parts have not been uploaded (part 2, 3)');
      expect((await uploads.get(ACCOUNT_ID, upload.uploadId))?.status).toBe('pending');
    });

    it('fails size_mismatch on a part of the wrong size and aborts the multipart upload', async () => {
      const { deps, account, upload, media } = await multipartUpload();
      media.putPart('mp-1', 1, 5 * MiB);
      media.putPart('mp-1', 2, 5 * MiB - 1);
      media.putPart('mp-1', 3, 2 * MiB);
      await expect(completeUpload(deps, account, upload.uploadId, later(1000))).resolves.toMatchObject({
        status: 'failed',
        error: { code: 'size_mismatch', message: expect.stringContaining('Part 2') as string },
      });
      expect(media.calls).toContain('abortMultipart');
    });

    it('when the multipart upload is already completed (a retried complete), goes on from the object', async () => {
      const { deps, account, upload, media } = await multipartUpload();
      media.multiparts.delete('mp-1');
      media.objects.set(upload.objectKey, { size: 12 * MiB, lastModified: NOW });
      await expect(completeUpload(deps, account, upload.uploadId, later(1000))).resolves.toMatchObject({ status: 'ready' });
    });
  });
});

describe('derived states and the run gate', () => {
  const base = (overrides: Partial<UploadRecord>): UploadRecord =>
    uploadRecord({
      filename: 'f',
      objectKey: 'k',
      expiresAt: later(1000).toISOString(),
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      ...overrides,
    });
  const ready = base({ status: 'ready', retentionExpiresAt: later(7 * 86_400_000).toISOString(), durationMs: 1000 });

  it('reads pending past expires_at as expired and ready past retention as deleted', () => {
    expect(uploadStatusAt(base({}), NOW)).toBe('pending');
    expect(uploadStatusAt(base({}), later(1000))).toBe('expired');
    expect(uploadStatusAt(ready, later(7 * 86_400_000 - 1))).toBe('ready');
    expect(uploadStatusAt(ready, later(7 * 86_400_000))).toBe('deleted');
    expect(uploadStatusAt(base({ status: 'failed' }), later(99_999_999))).toBe('failed');
  });

  it('assertRunnableUpload: upload_not_found for unknown, upload_not_ready for anything but ready', () => {
    expect(syncApiError(() => assertRunnableUpload(undefined, NOW))).toMatchObject({ code: 'upload_not_found', status: 400, param: 'upload_id' });
    for (const [upload, at, state] of [
      [base({}), NOW, 'pending'],
      [base({}), later(1000), 'expired'],
      [base({ status: 'failed', error: { code: 'truncated_media', message: 'x' } }), NOW, 'failed'],
      [ready, later(8 * 86_400_000), 'deleted'],
    ] as const) {
      const error = syncApiError(() => assertRunnableUpload(upload, at, 'items[3].upload_id'));
      expect(error).toMatchObject({ code: 'upload_not_ready', status: 400, param: 'items[3].upload_id' });
      expect(error.message).toContain(`is ${state}`);
    }
    expect(() => assertRunnableUpload(ready, NOW)).not.toThrow();
  });

  it('findRunnableUpload looks the upload up and applies the gate', async () => {
    const { deps } = fakeDeps();
    await deps.uploads.create(ACCOUNT_ID, ready, 1);
    await expect(findRunnableUpload(deps.uploads, ACCOUNT_ID, 'upl_1', NOW)).resolves.toEqual(ready);
    await expect(apiError(findRunnableUpload(deps.uploads, ACCOUNT_ID, 'upl_2', NOW))).resolves.toMatchObject({ code: 'upload_not_found' });
  });

  it('keeps records past their usefulness for a grace period (table TTL)', () => {
    const day = 86_400;
    expect(recordExpiry(ready)).toBe(Math.ceil(Date.parse(ready.retentionExpiresAt ?? '') / 1000) + 30 * day);
    const failed = base({ status: 'failed', failedAt: NOW.toISOString() });
    expect(recordExpiry(failed)).toBe(Math.ceil(NOW.getTime() / 1000) + 30 * day);
  });

  it('presents signed targets only when given, and derived status always', () => {
    const shown = presentUpload(base({}), later(5000));
    expect(shown).toMatchObject({ status: 'expired', upload_method: null, upload_url: null, upload_headers: null, upload_parts: null });
    expect(Object.keys(shown)).not.toContain('objectKey');
    expect(JSON.stringify(shown)).not.toContain('"k"');
  });
});
