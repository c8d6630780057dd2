import { config } from '../config.js';
import { instrumentClient } from '../adapters/aws-call-hooks.js';
import { analyzerFor, transcriberFor } from '../adapters/engines.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import { s3ArtifactStore } from '../adapters/s3-artifact-store.js';
import { FfmpegSignalExtractor } from '../adapters/signals/ffmpeg-signal-extractor.js';
import type { SignalExtractor } from '../domain/engine/signals.js';
import type { PipelineDeps } from '../domain/runs/steps/deps.js';
import { settleBatchItem } from '../domain/batches/workflow.js';
import { readSecretString } from '../adapters/secrets.js';
import { deferred, lazy } from '../shared/memo.js';
import { batches } from './batches.js';
import { hostWorkflows } from './host.js';
import { media, s3 } from './media.js';
import { runs, slots } from './runs.js';
import { accounts } from './accounts.js';
import { admittedRuns } from '../workflows/admission.js';

/** Presigned GETs that ffmpeg reads sources through live as long as the longest chunk may take. */
const SOURCE_URL_TTL_SECONDS = 6 * 60 * 60;

/**
 * The analysis workflow's steps (statemachines/analysis.asl.json): the engine (signals, transcriber,
 * analyzer) over the media bucket, and the runs, slots and batch items it settles. AcquireSource,
 * which also reads sources, has its own module (acquisition.ts).
 */
export const pipeline = lazy((): PipelineDeps => {
  const cfg = config();
  // Built on first use: only the functions that carry ffmpeg ever extract signals.
  const extractor: SignalExtractor = deferred(
    () => new FfmpegSignalExtractor({ ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH), ffprobePath: resolveFfprobePath(cfg.FFPROBE_PATH) }),
    ['extract'],
  );
  return {
    runs: runs(),
    accounts: accounts(),
    slots: slots(),
    callbacks: hostWorkflows,
    onRunEnded: (run) => settleBatchItem({ batches: batches(), callbacks: hostWorkflows }, run),
    artifacts: s3ArtifactStore(s3(), cfg.MEDIA_BUCKET),
    signSourceUrl: (objectKey) => media().signGet(objectKey, SOURCE_URL_TTL_SECONDS),
    extractor,
    transcriber: transcriberFor(cfg, { s3: s3() }, cfg.MEDIA_BUCKET),
    analyzer: analyzerFor(cfg, async (secretId) => {
      const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
      return readSecretString(instrumentClient(new SecretsManagerClient({ region: cfg.AWS_REGION })), secretId);
    }),
    runCapacity: admittedRuns({ containerTasks: cfg.CONTAINER_TASK_LIMIT, transcribeJobs: cfg.TRANSCRIBE_JOB_LIMIT ?? null }),
    deploymentMaxObservations: cfg.MAX_OBSERVATIONS_CAP,
    chunkMs: cfg.CHUNK_SECONDS * 1000,
    signalsRunner: cfg.SIGNALS_RUNNER,
    acquisitionRunner: cfg.ACQUISITION_RUNNER,
  };
});
