import { config, type Config } from './config.js';
import { createAwsClients } from './adapters/aws-clients.js';
import { noteCursorSecretUse, resolveCursorSecret } from './adapters/cursor-secret.js';
import { instrumentClient } from './adapters/aws-call-hooks.js';
import { CursorCodec } from './adapters/table/cursor.js';
import { dynamoAccountStore } from './adapters/table/account-store.js';
import { dynamoScannerStore } from './adapters/table/scanner-store.js';
import { AccountScopedPersistenceLayer } from './adapters/idempotency-store.js';
import { createIdempotentExecutor, type IdempotentExecutor } from './http/idempotency.js';
import { dynamoUploadStore } from './adapters/table/upload-store.js';
import { s3MediaStore } from './adapters/media/s3-media-store.js';
import { ffprobeInspector, spawnFfprobe } from './adapters/media/ffprobe-inspector.js';
import { eventPublisherFor } from './adapters/events/publisher.js';
import type { AccountStore, EventPublisher, MediaInspector, MediaStore, ScannerStore, UploadStore } from './domain/ports.js';
import { SFNClient } from '@aws-sdk/client-sfn';
import { dynamoRunStore } from './adapters/table/run-store.js';
import { s3ArtifactStore } from './adapters/s3-artifact-store.js';
import { sfnBatchWorkflowStarter, sfnWorkflowStarter } from './adapters/workflows/sfn-starter.js';
import { dynamoBatchStore } from './adapters/table/batch-store.js';
import type { BatchStore, BatchWorkflowStarter } from './domain/batches/ports.js';
import type { BatchDeps } from './domain/batches/submit.js';
import type { BatchWorkflowDeps } from './domain/batches/workflow.js';
import { FfmpegSignalExtractor } from './adapters/signals/ffmpeg-signal-extractor.js';
import { resolveFfmpegPath, resolveFfprobePath } from './adapters/ffmpeg-binaries.js';
import { analyzerFor, transcriberFor } from './adapters/engines.js';
import { findRunnableUpload } from './domain/uploads.js';
import type { PipelineDeps } from './domain/runs/pipeline.js';
import type { SignalExtractor } from './domain/analysis/signals.js';
import type { RunStore, RunnableSourceLookup, SlotStore, TaskTokenCallbacks, WorkflowStarter } from './domain/runs/ports.js';
import { dynamoSlotStore } from './adapters/table/slot-store.js';
import { sfnTaskCallbacks } from './adapters/workflows/sfn-task-callbacks.js';

/** Everything a handler may call, built once per process (Lambda cold start or local host). */
export interface Services {
  config: Config;
  accounts: AccountStore;
  scanners: ScannerStore;
  idempotent: IdempotentExecutor;
  uploads: UploadStore;
  media: MediaStore;
  inspector: MediaInspector;
  events: EventPublisher;
  runs: RunStore;
  slots: SlotStore;
  findRunnableSource: RunnableSourceLookup;
  /** The analysis workflow starter: Step Functions on AWS, or the one the local host installed. */
  workflows: WorkflowStarter;
  pipeline: PipelineDeps;
  batches: BatchStore;
  batchSubmission: BatchDeps;
  batchWorkflow: BatchWorkflowDeps;
}

/** Presigned GETs that ffmpeg reads sources through live as long as the longest chunk may take. */
const SOURCE_URL_TTL_SECONDS = 6 * 60 * 60;

/** What runs workflows: starts them and wakes those waiting on a task token. */
export type WorkflowHost = WorkflowStarter & BatchWorkflowStarter & TaskTokenCallbacks;

let hostWorkflows: WorkflowHost | undefined;

/**
 * The local host runs workflows in-process and installs its runner here, so that Lambda
 * bundles never carry the local Step Functions interpreter.
 */
export function useHostWorkflows(host: WorkflowHost): void {
  hostWorkflows = host;
}

let services: Promise<Services> | undefined;

export function getServices(): Promise<Services> {
  noteCursorSecretUse(config());
  services ??= buildServices(config()).catch((error: unknown) => {
    services = undefined; // a failed cold start (e.g. the secret fetch) is retried by the next request
    throw error;
  });
  return services;
}

async function buildServices(cfg: Config): Promise<Services> {
  const clients = createAwsClients(cfg);
  const table = { doc: clients.doc, tableName: cfg.TABLE_NAME, cursors: new CursorCodec(await resolveCursorSecret(cfg, clients.secrets)) };
  const accounts = dynamoAccountStore(table);
  const uploads = dynamoUploadStore(table);
  const media = s3MediaStore(clients.s3, cfg.MEDIA_BUCKET);
  const runs = dynamoRunStore(table);
  const slots = dynamoSlotStore(table);
  const sfnClient = instrumentClient(new SFNClient({ region: cfg.AWS_REGION }));
  const sfnCallbacks = sfnTaskCallbacks(sfnClient);
  const configured = <T>(arn: string | undefined, variable: string, starter: (arn: string) => T): (() => T) => {
    const built = arn ? starter(arn) : undefined;
    return () => {
      if (!built) throw new Error(`Invalid configuration: ${variable} is not set`);
      return built;
    };
  };
  const sfnAnalysis = configured(cfg.ANALYSIS_STATE_MACHINE_ARN, 'ANALYSIS_STATE_MACHINE_ARN', (arn) => sfnWorkflowStarter(sfnClient, arn));
  const sfnBatch = configured(cfg.BATCH_STATE_MACHINE_ARN, 'BATCH_STATE_MACHINE_ARN', (arn) => sfnBatchWorkflowStarter(sfnClient, arn));
  // Resolved per call: the local host installs its runner after the first services may exist.
  const callbacks: TaskTokenCallbacks = { succeed: (token, output) => (hostWorkflows ?? sfnCallbacks).succeed(token, output) };
  const workflows: WorkflowStarter = { startAnalysis: (ref) => (hostWorkflows ?? sfnAnalysis()).startAnalysis(ref) };
  const batchWorkflows: BatchWorkflowStarter = { startBatch: (ref) => (hostWorkflows ?? sfnBatch()).startBatch(ref) };
  const scanners = dynamoScannerStore(table);
  const batches = dynamoBatchStore(table);
  const findRunnableSource: RunnableSourceLookup = async (accountId, uploadId, param) => {
    const upload = await findRunnableUpload(uploads, accountId, uploadId, new Date(), param);
    return { uploadId: upload.uploadId, mediaKind: upload.mediaKind, durationMs: upload.durationMs ?? 0, objectKey: upload.objectKey };
  };
  // Built on first use: only the functions that carry the ffmpeg layer ever extract signals.
  let extractor: SignalExtractor | undefined;
  const lazyExtractor: SignalExtractor = {
    extract: (input) => {
      extractor ??= new FfmpegSignalExtractor({ ffmpegPath: resolveFfmpegPath(cfg.FFMPEG_PATH), ffprobePath: resolveFfprobePath(cfg.FFPROBE_PATH) });
      return extractor.extract(input);
    },
  };

  return {
    config: cfg,
    accounts,
    scanners,
    idempotent: createIdempotentExecutor(new AccountScopedPersistenceLayer(clients.dynamo, cfg.TABLE_NAME), cfg.IDEMPOTENCY_TTL_SECONDS),
    uploads,
    media,
    inspector: ffprobeInspector(spawnFfprobe(() => resolveFfprobePath(cfg.FFPROBE_PATH)), cfg.PROBE_TIMEOUT_MS),
    events: eventPublisherFor(cfg),
    runs,
    slots,
    findRunnableSource,
    workflows,
    batches,
    batchSubmission: { batches, scanners, findSource: findRunnableSource, batchWorkflows, batchesEnabled: cfg.SCANNER_BATCHES_ENABLED },
    batchWorkflow: { batches, runs, scanners, accounts, findSource: findRunnableSource, workflows, callbacks },
    pipeline: {
      runs,
      accounts,
      slots,
      callbacks,
      batches,
      artifacts: s3ArtifactStore(clients.s3, cfg.MEDIA_BUCKET),
      signSourceUrl: (objectKey) => media.signGet(objectKey, SOURCE_URL_TTL_SECONDS),
      extractor: lazyExtractor,
      transcriber: transcriberFor(cfg, clients, cfg.MEDIA_BUCKET),
      analyzer: analyzerFor(cfg, clients),
      deploymentMaxObservations: cfg.MAX_OBSERVATIONS_CAP,
      chunkMs: cfg.CHUNK_SECONDS * 1000,
      signalsRunner: cfg.SIGNALS_RUNNER,
    },
  };
}
