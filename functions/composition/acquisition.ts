import { s3FileWriter } from '../adapters/media/s3-file-writer.js';
import { resolveFfmpegPath } from '../adapters/ffmpeg-binaries.js';
import { createSourceGateway } from '../adapters/sources/source-gateway.js';
import { ytDlp } from '../adapters/sources/yt-dlp.js';
import { config } from '../config.js';
import type { AcquisitionDeps } from '../domain/analyses/acquire.js';
import { lazy } from '../shared/memo.js';
import { s3 } from './media.js';
import { runs } from './runs.js';
import { sourceReaderOptions } from './sources.js';

/**
 * The AcquireSource step: sources read as for a preflight, copied into the media bucket. Apart from
 * sources.ts so that preflight, quote and submission carry no S3 client (test/infra/route-bundles.test.ts),
 * and from engine.ts so that the other analysis steps carry no source gateway.
 */
export const acquisition = lazy((): AcquisitionDeps => {
  const cfg = config();
  return {
    runs: runs(),
    sources: createSourceGateway({
      ...sourceReaderOptions(),
      store: s3FileWriter(s3(), cfg.MEDIA_BUCKET, { partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES }),
      // Downloads run yt-dlp where it is installed: the container image (the acquisition container task).
      ytDlp: ytDlp({ binaryPath: cfg.YT_DLP_PATH, ffmpegPath: () => resolveFfmpegPath(cfg.FFMPEG_PATH) }),
    }),
  };
});
