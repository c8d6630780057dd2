/** The acquired copy into the media bucket: one streamed PUT, or streamed parts past the single-PUT limit. */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type UploadPartCommandInput,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3FileWriter } from '../../../../functions/adapters/media/s3-file-writer.js';
import { capturingS3, sha256 } from './support.js';

const bytes = randomBytes(12_345);
let dir: string;
let path: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3-file-writer-'));
  path = join(dir, 'source');
  await writeFile(path, bytes);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function read(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('s3FileWriter', () => {
  it('puts a file up to the single-PUT limit in one streamed request, with its length, type and tags', async () => {
    const { s3, objects } = capturingS3();
    await s3FileWriter(s3, 'media-bucket').putFile('k/one', path, 'video/mp4', { 'retention-days': '90' });
    const stored = objects.get('k/one');
    expect(stored && sha256(stored.bytes)).toBe(sha256(bytes));
    expect(stored?.input).toMatchObject({ Bucket: 'media-bucket', ContentLength: bytes.length, ContentType: 'video/mp4', Tagging: 'retention-days=90' });
  });

  it('sends larger files as streamed parts and completes them in order', async () => {
    const { s3, mock } = capturingS3();
    const parts = new Map<number, Buffer>();
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'mp-1' });
    mock.on(UploadPartCommand).callsFake(async (input: UploadPartCommandInput) => {
      const part = await read(input.Body);
      expect(input.ContentLength).toBe(part.length);
      parts.set(input.PartNumber ?? 0, part);
      return { ETag: `"etag-${input.PartNumber}"` };
    });
    mock.on(CompleteMultipartUploadCommand).resolves({});
    await s3FileWriter(s3, 'media-bucket', { singlePutMaxBytes: 10_000, partSizeBytes: 5_000 }).putFile('k/parts', path, 'video/mp4', {
      'retention-days': '7',
    });

    expect(mock.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toMatchObject({
      Key: 'k/parts',
      ContentType: 'video/mp4',
      Tagging: 'retention-days=7',
    });
    expect([...parts.keys()]).toEqual([1, 2, 3]);
    expect(sha256(Buffer.concat([...parts.values()]))).toBe(sha256(bytes));
    expect(mock.commandCalls(CompleteMultipartUploadCommand)[0]?.args[0].input.MultipartUpload?.Parts).toEqual([
      { PartNumber: 1, ETag: '"etag-1"' },
      { PartNumber: 2, ETag: '"etag-2"' },
      { PartNumber: 3, ETag: '"etag-3"' },
    ]);
    expect(mock.commandCalls(AbortMultipartUploadCommand)).toHaveLength(0);
  });

  it('aborts the multipart upload when a part fails', async () => {
    const { s3, mock } = capturingS3();
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'mp-2' });
    mock.on(UploadPartCommand).rejects(new Error('connection reset'));
    mock.on(AbortMultipartUploadCommand).resolves({});
    const writer = s3FileWriter(s3, 'media-bucket', { singlePutMaxBytes: 10_000, partSizeBytes: 5_000 });
    await expect(writer.putFile('k/failed', path, 'video/mp4', {})).rejects.toThrow('connection reset');
    expect(mock.commandCalls(AbortMultipartUploadCommand)[0]?.args[0].input).toMatchObject({ Key: 'k/failed', UploadId: 'mp-2' });
    expect(mock.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
  });
});
