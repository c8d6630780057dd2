import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListPartsCommand,
  NoSuchUpload,
  NotFound,
  PutObjectTaggingCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createS3Client } from '../../../functions/adapters/s3-client.js';
import { parseConfig } from '../../../functions/config.js';
import { s3MediaStore } from '../../../functions/adapters/media/s3-media-store.js';
import { serviceEnv } from '../../helpers/unit-fixtures.js';

// The S3 client exactly as the service builds it (createS3Client), so presigning is real.
const s3 = createS3Client(parseConfig({ ...serviceEnv }));
const s3Mock = mockClient(S3Client);
const store = s3MediaStore(s3, 'media-bucket');
const KEY = 'accounts/acct_1/uploads/upl_1';
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000);

beforeAll(() => {
  // Presigning reads the credentials from the environment, as a Lambda does.
  vi.stubEnv('AWS_ACCESS_KEY_ID', serviceEnv.AWS_ACCESS_KEY_ID);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', serviceEnv.AWS_SECRET_ACCESS_KEY);
  vi.stubEnv('AWS_SESSION_TOKEN', undefined);
  vi.stubEnv('AWS_PROFILE', undefined);
});
beforeEach(() => s3Mock.reset());
afterAll(() => {
  s3Mock.restore();
  vi.unstubAllEnvs();
});

const noSuchUpload = () => new NoSuchUpload({ message: 'gone', $metadata: { httpStatusCode: 404 } });

describe('signPut', () => {
  it('signs content-type and the retention tag as headers the client must send', async () => {
    const target = await store.signPut(KEY, 'audio/mpeg', { 'retention-days': '30' }, inMinutes(15));
    const url = new URL(target.url);
    expect(url.pathname).toContain(KEY);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host;x-amz-tagging');
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(899);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(900);
    // The tag must stay a header (a hoisted query parameter does not tag the object).
    expect(url.searchParams.has('x-amz-tagging')).toBe(false);
    expect(target).toMatchObject({ method: 'PUT', headers: { 'content-type': 'audio/mpeg', 'x-amz-tagging': 'retention-days=30' } });
  });

  it('does not sign an empty-body checksum into the URL (S3 would reject the real bytes)', async () => {
    const put = new URL((await store.signPut(KEY, 'video/mp4', { 'retention-days': '7' }, inMinutes(15))).url);
    const [part] = await store.signParts(KEY, 'mp', [{ partNumber: 1, sizeBytes: 10 }], inMinutes(15));
    for (const url of [put, new URL(part?.url ?? '')]) {
      expect([...url.searchParams.keys()].filter((k) => k.toLowerCase().includes('checksum'))).toEqual([]);
    }
  });
});

describe('multipart', () => {
  it('starts the upload with the content type and tags', async () => {
    s3Mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'mp-1' });
    await expect(store.createMultipart(KEY, 'video/mp4', { 'retention-days': '90' })).resolves.toBe('mp-1');
    expect(s3Mock.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toEqual({
      Bucket: 'media-bucket',
      Key: KEY,
      ContentType: 'video/mp4',
      Tagging: 'retention-days=90',
    });
  });

  it('signs one UploadPart URL per part', async () => {
    const parts = await store.signParts(
      KEY,
      'mp-1',
      [
        { partNumber: 1, sizeBytes: 5 },
        { partNumber: 2, sizeBytes: 3 },
      ],
      inMinutes(60),
    );
    expect(parts.map((p) => [p.partNumber, p.sizeBytes])).toEqual([
      [1, 5],
      [2, 3],
    ]);
    const url = new URL(parts[1]?.url ?? '');
    expect(url.searchParams.get('partNumber')).toBe('2');
    expect(url.searchParams.get('uploadId')).toBe('mp-1');
    expect(url.searchParams.get('x-id')).toBe('UploadPart');
  });

  it('lists every page of parts with their ETags', async () => {
    s3Mock
      .on(ListPartsCommand, { PartNumberMarker: undefined })
      .resolves({ Parts: [{ PartNumber: 1, Size: 5, ETag: '"a"' }], IsTruncated: true, NextPartNumberMarker: '1' })
      .on(ListPartsCommand, { PartNumberMarker: '1' })
      .resolves({ Parts: [{ PartNumber: 2, Size: 3, ETag: '"b"' }], IsTruncated: false });
    await expect(store.listParts(KEY, 'mp-1')).resolves.toEqual([
      { partNumber: 1, sizeBytes: 5, etag: '"a"' },
      { partNumber: 2, sizeBytes: 3, etag: '"b"' },
    ]);
  });

  it('reports a multipart upload that no longer exists', async () => {
    s3Mock.on(ListPartsCommand).rejects(noSuchUpload());
    s3Mock.on(CompleteMultipartUploadCommand).rejects(noSuchUpload());
    s3Mock.on(AbortMultipartUploadCommand).rejects(noSuchUpload());
    await expect(store.listParts(KEY, 'mp-1')).resolves.toBeUndefined();
    await expect(store.completeMultipart(KEY, 'mp-1', [])).resolves.toBe(false);
    await expect(store.abortMultipart(KEY, 'mp-1')).resolves.toBeUndefined();
  });

  it('completes with the listed ETags', async () => {
    s3Mock.on(CompleteMultipartUploadCommand).resolves({});
    await expect(store.completeMultipart(KEY, 'mp-1', [{ partNumber: 1, sizeBytes: 5, etag: '"a"' }])).resolves.toBe(true);
    expect(s3Mock.commandCalls(CompleteMultipartUploadCommand)[0]?.args[0].input.MultipartUpload).toEqual({ Parts: [{ PartNumber: 1, ETag: '"a"' }] });
  });
});

describe('objects', () => {
  it('heads an object, or says it is not there', async () => {
    const lastModified = new Date('2026-01-02T03:04:05.000Z');
    s3Mock
      .on(HeadObjectCommand)
      .resolvesOnce({ ContentLength: 42, LastModified: lastModified })
      .rejectsOnce(new NotFound({ message: 'nf', $metadata: { httpStatusCode: 404 } }));
    await expect(store.head(KEY)).resolves.toEqual({ sizeBytes: 42, lastModified });
    await expect(store.head(KEY)).resolves.toBeUndefined();
  });

  it('tags an object with its retention class', async () => {
    s3Mock.on(PutObjectTaggingCommand).resolves({});
    await store.tag(KEY, { 'retention-days': '7' });
    expect(s3Mock.commandCalls(PutObjectTaggingCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'media-bucket',
      Key: KEY,
      Tagging: { TagSet: [{ Key: 'retention-days', Value: '7' }] },
    });
  });

  it('signs a GET for the probe', async () => {
    const url = new URL(await store.signGet(KEY, 900));
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('x-id')).toBe('GetObject');
  });
});
