import { config } from '../config.js';
import { ffprobeInspector, spawnFfprobe } from '../adapters/media/ffprobe-inspector.js';
import { resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import type { UploadDeps } from '../domain/uploads/ports.js';
import { logger } from '../shared/logger.js';
import { lazy } from '../shared/memo.js';
import { media } from './media.js';
import { uploadStore } from './uploads.js';

/**
 * Creating and completing uploads: signed targets and the fail-closed probe. Apart from uploads.ts
 * so that the routes that only read uploads, and the runs and batches that look up their source,
 * carry no S3 client (test/infra/route-bundles.test.ts).
 */
export const uploads = lazy((): UploadDeps => {
  const cfg = config();
  return {
    uploads: uploadStore(),
    media: media(),
    inspector: ffprobeInspector(
      spawnFfprobe(() => resolveFfprobePath(cfg.FFPROBE_PATH)),
      cfg.PROBE_TIMEOUT_MS,
    ),
    multipartThresholdBytes: cfg.MULTIPART_THRESHOLD_BYTES,
    partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES,
    warn: (message, error) => logger.warn(message, error as Error),
  };
});
