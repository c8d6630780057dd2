import { config } from '../config.js';
import { createS3Client } from '../adapters/s3-client.js';
import { s3MediaStore } from '../adapters/media/s3-media-store.js';
import { lazy } from '../shared/memo.js';

/** The media bucket's client, built once per process. */
export const s3 = lazy(() => createS3Client(config()));

export const media = lazy(() => s3MediaStore(s3(), config().MEDIA_BUCKET));
