import { s3FileWriter } from '../adapters/media/s3-file-writer.js';
import { createSourceGateway } from '../adapters/sources/source-gateway.js';
import { config } from '../config.js';
import type { AcquisitionDeps } from '../domain/analyses/acquire.js';
import { lazy } from '../shared/memo.js';
import { s3 } from './media.js';
import { runs } from './runs.js';
import { sourceReaderOptions } from './sources.js';

/** The AcquireSource step: sources read as for a preflight, copied into the media bucket. */
export const acquisition = lazy((): AcquisitionDeps => {
  const cfg = config();
  return {
    runs: runs(),
    sources: createSourceGateway({ ...sourceReaderOptions(), store: s3FileWriter(s3(), cfg.MEDIA_BUCKET, { partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES }) }),
  };
});
