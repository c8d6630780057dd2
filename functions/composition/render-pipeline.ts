import { config } from '../config.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import { s3FileWriter } from '../adapters/media/s3-file-writer.js';
import { blazeFaceDetector, resolveFaceDetectorFiles } from '../adapters/renders/face-detector.js';
import { FfmpegMomentRenderer } from '../adapters/renders/ffmpeg-render.js';
import type { RenderPipelineDeps } from '../domain/renders/pipeline.js';
import { lazy } from '../shared/memo.js';
import { media, s3 } from './media.js';
import { renders } from './renders.js';
import { runs } from './runs.js';
import { accounts } from './accounts.js';

/** A moment's source is read through a signed GET for as long as its render may take. */
const SOURCE_URL_TTL_SECONDS = 60 * 60;

/**
 * The RenderMoment step (the render container only). Apart from renders.ts so that ffmpeg, the
 * face detector (TensorFlow.js, megabytes) and the S3 client stay out of POST /v1/renders, which
 * has no bucket access (test/infra/route-bundles.test.ts), and of the settle functions.
 */
export const renderPipeline = lazy((): RenderPipelineDeps => {
  const cfg = config();
  const renderer = new FfmpegMomentRenderer({
    ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
    ffprobePath: resolveFfprobePath(cfg.FFPROBE_PATH),
    ...(cfg.CAPTION_FONTS_DIR ? { fontsDir: cfg.CAPTION_FONTS_DIR } : {}),
    store: s3FileWriter(s3(), cfg.MEDIA_BUCKET, { partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES }),
  });
  return {
    renders: renders(),
    runs: runs(),
    accounts: accounts(),
    signSourceUrl: (objectKey) => media().signGet(objectKey, SOURCE_URL_TTL_SECONDS),
    renderer,
    // `auto` and `stacked` framing aim at faces (the model loads on the first cropped render).
    detector: blazeFaceDetector(resolveFaceDetectorFiles({ modelDir: cfg.FACE_MODEL_DIR, wasmDir: cfg.TFJS_WASM_DIR })),
  };
});
