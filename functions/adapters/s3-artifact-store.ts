import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ArtifactStore } from '../domain/runs/ports.js';

/** Workflow artifacts (signals, findings) as JSON objects in the media bucket, under `artifacts/`. */
export function s3ArtifactStore(s3: S3Client, bucket: string): ArtifactStore {
  return {
    async putJson(key, value) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(value), ContentType: 'application/json' }));
    },
    async getJson<T>(key: string): Promise<T> {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return JSON.parse(await object.Body!.transformToString('utf8')) as T;
    },
  };
}
