import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import { instrumentClient } from './aws-call-hooks.js';

/** The media bucket's client; the local host points it at s3rver (S3_ENDPOINT). */
export function createS3Client(config: Config): S3Client {
  return instrumentClient(
    new S3Client({
      region: config.AWS_REGION,
      // Without this the SDK signs a CRC32 of an empty body into presigned PUT/UploadPart URLs
      // (x-amz-checksum-crc32=AAAAAA==) and S3 rejects the client's real bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true } : {}),
    }),
  );
}
