import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3ServiceException,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { encodeTags } from '../../domain/uploads/retention.js';
import type { MediaStore, UploadedPart } from '../../domain/uploads/ports.js';

/** SigV4 presigned URLs live at most 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 86_400;

const secondsUntil = (deadline: Date): number => Math.min(MAX_PRESIGN_SECONDS, Math.max(1, Math.floor((deadline.getTime() - Date.now()) / 1000)));

const isNoSuchUpload = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.name === 'NoSuchUpload' || error.$metadata.httpStatusCode === 404);

/**
 * The media bucket on S3 (and on s3rver for the local host, through the same client).
 *
 * A single PUT target signs `content-type` and `x-amz-tagging` (the retention class), so S3
 * refuses the bytes unless both headers are sent exactly as upload_headers lists them; the tag is
 * kept out of the query string (`unhoistableHeaders`) because only a header tags the object.
 * The S3 client must be built with `requestChecksumCalculation: 'WHEN_REQUIRED'` (aws-clients.ts):
 * otherwise the SDK signs a CRC32 of an empty body into every PUT/UploadPart URL and S3 rejects
 * the real bytes.
 */
export function s3MediaStore(s3: S3Client, bucket: string): MediaStore {
  return {
    async signPut(key, contentType, tags, expiresAt) {
      const tagging = encodeTags(tags);
      const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: contentType, Tagging: tagging }), {
        expiresIn: secondsUntil(expiresAt),
        signableHeaders: new Set(['content-type', 'x-amz-tagging']),
        unhoistableHeaders: new Set(['x-amz-tagging']),
      });
      return { method: 'PUT', url, headers: { 'content-type': contentType, 'x-amz-tagging': tagging } };
    },

    async createMultipart(key, contentType, tags) {
      const result = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType, Tagging: encodeTags(tags) }));
      if (!result.UploadId) throw new Error('S3 started a multipart upload without an UploadId');
      return result.UploadId;
    },

    signParts(key, multipartId, parts, expiresAt) {
      const expiresIn = secondsUntil(expiresAt);
      return Promise.all(
        parts.map(async (part) => ({
          ...part,
          url: await getSignedUrl(s3, new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: multipartId, PartNumber: part.partNumber }), {
            expiresIn,
          }),
        })),
      );
    },

    async listParts(key, multipartId) {
      const parts: UploadedPart[] = [];
      let marker: string | undefined;
      try {
        for (;;) {
          const page = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: multipartId, PartNumberMarker: marker }));
          for (const part of page.Parts ?? []) {
            if (part.PartNumber === undefined || part.ETag === undefined) continue;
            parts.push({ partNumber: part.PartNumber, sizeBytes: part.Size ?? 0, etag: part.ETag });
          }
          if (!page.IsTruncated || !page.NextPartNumberMarker) return parts;
          marker = page.NextPartNumberMarker;
        }
      } catch (error) {
        if (isNoSuchUpload(error)) return undefined;
        throw error;
      }
    },

    async completeMultipart(key, multipartId, parts) {
      try {
        await s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: multipartId,
            MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
          }),
        );
        return true;
      } catch (error) {
        if (isNoSuchUpload(error)) return false;
        throw error;
      }
    },

    async abortMultipart(key, multipartId) {
      try {
        await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: multipartId }));
      } catch (error) {
        if (!isNoSuchUpload(error)) throw error;
      }
    },

    async head(key) {
      try {
        const result = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { sizeBytes: result.ContentLength ?? 0, lastModified: result.LastModified ?? new Date() };
      } catch (error) {
        if (error instanceof S3ServiceException && (error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)) return undefined;
        throw error;
      }
    },

    signGet: (key, expiresInSeconds) =>
      getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: Math.min(MAX_PRESIGN_SECONDS, expiresInSeconds) }),

    async tag(key, tags) {
      await s3.send(
        new PutObjectTaggingCommand({
          Bucket: bucket,
          Key: key,
          Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
        }),
      );
    },

    async remove(key) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
