import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { encodeTags } from '../../domain/uploads/retention.js';
import type { MediaFileWriter } from '../../domain/sources/ports.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
/** S3 caps parts per upload at 10,000. */
const MAX_PARTS = 10_000;

interface S3FileWriterOptions {
  /** Larger files go up in parts (one PUT stops at 5 GiB). Default 5 GiB. */
  singlePutMaxBytes?: number | undefined;
  /** Default 512 MiB; raised when a file would need more than 10,000 parts. */
  partSizeBytes?: number | undefined;
}

/**
 * Writes a local file into the media bucket: one streamed PutObject up to 5 GiB, a multipart
 * upload of streamed file ranges beyond (parts one at a time: memory stays flat), aborted if
 * any part fails so no orphaned parts are billed.
 */
export function s3FileWriter(s3: S3Client, bucket: string, options: S3FileWriterOptions = {}): MediaFileWriter {
  const singlePutMaxBytes = options.singlePutMaxBytes ?? 5 * GiB;
  const basePartSize = options.partSizeBytes ?? 512 * MiB;
  return {
    async putFile(key, path, contentType, tags) {
      const size = (await stat(path)).size;
      const tagging = Object.keys(tags).length > 0 ? encodeTags(tags) : undefined;
      const object = { Bucket: bucket, Key: key };
      if (size <= singlePutMaxBytes) {
        await withFileBody(path, 0, size - 1, (Body) =>
          s3.send(new PutObjectCommand({ ...object, Body, ContentLength: size, ContentType: contentType, Tagging: tagging })),
        );
        return;
      }
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ ...object, ContentType: contentType, Tagging: tagging }));
      if (!UploadId) throw new Error('S3 started a multipart upload without an UploadId');
      const partSize = Math.max(basePartSize, Math.ceil(size / MAX_PARTS));
      try {
        const parts: { PartNumber: number; ETag: string | undefined }[] = [];
        for (let start = 0; start < size; start += partSize) {
          const end = Math.min(size, start + partSize) - 1;
          const PartNumber = parts.length + 1;
          const { ETag } = await withFileBody(path, start, end, (Body) =>
            s3.send(new UploadPartCommand({ ...object, UploadId, PartNumber, Body, ContentLength: end - start + 1 })),
          );
          parts.push({ PartNumber, ETag });
        }
        await s3.send(new CompleteMultipartUploadCommand({ ...object, UploadId, MultipartUpload: { Parts: parts } }));
      } catch (error) {
        await s3.send(new AbortMultipartUploadCommand({ ...object, UploadId })).catch(() => undefined);
        throw error;
      }
    },

    async putStream(key, body, sizeBytes, contentType, tags) {
      if (sizeBytes > singlePutMaxBytes) throw new RangeError(`One PUT takes at most ${singlePutMaxBytes} bytes`);
      const tagging = Object.keys(tags).length > 0 ? encodeTags(tags) : undefined;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: sizeBytes, ContentType: contentType, Tagging: tagging }));
    },

    /** One streamed PUT at most: larger copies go through putFile's parts. */
    singlePutMaxBytes,

    async remove(key) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

/** Bytes start..end of the file as a request body, closed however the request ends (a failed request may not read it). */
async function withFileBody<T>(path: string, start: number, end: number, send: (body: ReadStream) => Promise<T>): Promise<T> {
  // An empty file (end -1) reads as no bytes.
  const body = createReadStream(path, { start, end: Math.max(start, end) });
  try {
    return await send(body);
  } finally {
    body.destroy();
  }
}
