import { config } from '../config.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import { s3FileWriter } from '../adapters/media/s3-file-writer.js';
import { FfmpegMomentRenderer } from '../adapters/renders/ffmpeg-render.js';
import { dynamoRenderStore } from '../adapters/table/render-store.js';
import type { RenderDeps } from '../domain/renders/create.js';
import type { ObjectSigner } from '../domain/renders/links.js';
import type { RenderPipelineDeps } from '../domain/renders/pipeline.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host-parts.js';
import { media, s3 } from './media.js';
import { idClaims, runs } from './runs.js';
import { accounts, table } from './table.js';

/** A moment's source is read through a signed GET for as long as its render may take. */
const SOURCE_URL_TTL_SECONDS = 60 * 60;

export const renders = lazy(() => dynamoRenderStore(table()));

/** Signed download links of assets (GET /v1/renders...). */
export const assetSigner: ObjectSigner = (objectKey, expiresInSeconds) => media().signGet(objectKey, expiresInSeconds);

/** POST /v1/renders: captions need a transcriber (DESIGN §7: none by default locally). */
export const renderSubmission = lazy(
  (): RenderDeps => ({ renders: renders(), runs: runs(), workflows: hostWorkflows, claims: idClaims(), captionsAvailable: config().TRANSCRIBER !== 'none' }),
);

/** The render workflow's steps (statemachines/render.asl.json). */
export const renderPipeline = lazy((): RenderPipelineDeps => {
  const cfg = config();
  // Built on first use: only the render container carries ffmpeg (SettleRender never renders).
  const renderer = lazy(
    () =>
      new FfmpegMomentRenderer({
        ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH),
        ffprobePath: resolveFfprobePath(cfg.FFPROBE_PATH),
        store: s3FileWriter(s3(), cfg.MEDIA_BUCKET, { partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES }),
      }),
  );
  return {
    renders: renders(),
    runs: runs(),
    accounts: accounts(),
    signSourceUrl: (objectKey) => media().signGet(objectKey, SOURCE_URL_TTL_SECONDS),
    renderer: { render: (job) => renderer().render(job) },
  };
});

/** What every render task takes. */
export const renderTask = lazy(() => ({ pipeline: renderPipeline() }));
