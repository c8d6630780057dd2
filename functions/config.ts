import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from './shared/zod.js';

/**
 * The one config reader. Every setting the functions use is named and validated here, once,
 * and a bad value fails loudly at start-up rather than at the first request that needs it.
 */
const optionalUrl = z.optional(z.url());
const nonEmpty = z.string().check(z.minLength(1));
const optionalNonEmpty = z.optional(nonEmpty);
const optionalArn = z.optional(z.string().check(z.startsWith('arn:')));
/** A whole number from the environment's text, at least `min` (and at most `max`), with a default. */
const wholeNumber = (min: number, max: number | null, fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.minimum(min), ...(max === null ? [] : [z.maximum(max)])), fallback);
/** A switch spelled as one of two words (`fallback` when unset), read as a boolean. */
const flag = (off: string, on: string, fallback: string) =>
  z.pipe(
    z._default(z.enum([off, on]), fallback),
    z.transform((value) => value === on),
  );
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

const analyzers = ['local', 'bedrock', 'openai'] as const;
const transcribers = ['none', 'aws-transcribe', 'whisper-cpp', 'pocketsphinx', 'moonshine'] as const;

/** Where Debian's `pocketsphinx` and `pocketsphinx-en-us` packages put the CLI and the US English model. */
export const POCKETSPHINX_DEFAULTS = { bin: '/usr/bin/pocketsphinx_continuous', modelDir: '/usr/share/pocketsphinx/model/en-us' } as const;
/** What a pocketsphinx model directory holds, in Debian's layout: the acoustic model (a directory), the language model, the dictionary. */
export const pocketsphinxModelFiles = (modelDir: string) => ({
  acousticModel: join(modelDir, 'en-us'),
  languageModel: join(modelDir, 'en-us.lm.bin'),
  dictionary: join(modelDir, 'cmudict-en-us.dict'),
});
/** The CLI and every model file are there. */
export const pocketsphinxInstalled = (bin: string, modelDir: string) =>
  [bin, ...Object.values(pocketsphinxModelFiles(modelDir))].every((path) => existsSync(path));
export const POCKETSPHINX_INSTALL_HINT = 'Debian/Ubuntu: `sudo apt-get install -y pocketsphinx pocketsphinx-en-us`';

/** Which Analyzer answers scanners and which Transcriber feeds it words (DESIGN §7), and what each needs. */
const engineShape = {
  ANALYZER: z._default(z.enum(analyzers), 'local'),
  /**
   * Absent: `whisper-cpp` when a whisper.cpp binary or model is set, else `none` (`npm start` sets
   * `moonshine`: functions/local/transcriber-default.ts).
   */
  TRANSCRIBER: z.optional(z.enum(transcribers)),
  /** ANALYZER=bedrock: a model id or inference profile id that supports Converse. */
  BEDROCK_MODEL_ID: optionalNonEmpty,
  /** ANALYZER=openai: any OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1` or a local model server. */
  OPENAI_BASE_URL: z.optional(z.url({ protocol: /^https?$/ })),
  OPENAI_MODEL: optionalNonEmpty,
  /** The endpoint's API key: literal (local host) or a Secrets Manager secret name or ARN (AWS); neither for keyless servers. */
  OPENAI_API_KEY: optionalNonEmpty,
  OPENAI_API_KEY_SECRET_ID: optionalNonEmpty,
  /** TRANSCRIBER=whisper-cpp: the whisper.cpp CLI (`whisper-cli`) and a ggml model file. */
  WHISPER_CPP_BIN: optionalNonEmpty,
  WHISPER_MODEL: optionalNonEmpty,
  /**
   * TRANSCRIBER=pocketsphinx: `pocketsphinx_continuous` and a model directory laid out as Debian's `pocketsphinx-en-us`.
   * TRANSCRIBER=moonshine times its words with them when both are there.
   */
  POCKETSPHINX_BIN: z._default(nonEmpty, POCKETSPHINX_DEFAULTS.bin),
  POCKETSPHINX_MODEL_DIR: z._default(nonEmpty, POCKETSPHINX_DEFAULTS.modelDir),
  /** TRANSCRIBER=moonshine: a folder holding its model files (SPEECH_MODEL_FILES); absent: the installed npm packages' own. */
  SPEECH_MODEL_DIR: optionalNonEmpty,
  /** ANALYZER=local: a folder holding its word table (WORD_VECTOR_FILES: the analyzer functions' copy); absent: built once in node_modules/.cache. */
  WORD_VECTORS_DIR: optionalNonEmpty,
  /** Spoken language (Amazon Transcribe code; whisper.cpp gets its first part). */
  TRANSCRIBE_LANGUAGE_CODE: z._default(z.string().check(z.regex(/^[a-z]{2,3}-[A-Z]{2}$/, 'a language code like en-US')), 'en-US'),
};

/** Which host runs the process (DESIGN §2) and what it trusts beyond AWS's rules (DESIGN §9). */
export interface HostPolicy {
  /**
   * `local`: the embedded host and every unit it runs, which inherit its HOST_KIND=local
   * (functions/local/host.ts); `aws`: Lambda functions and Fargate tasks, which never set it.
   */
  readonly kind: 'aws' | 'local';
  /** Outbound fetches (sources, webhooks) and trusted hosts may name loopback targets, over plain http too: LOCAL_ALLOW_LOOPBACK_TARGETS=1, local host only. */
  readonly allowLoopbackTargets: boolean;
}

type EngineInput = z.infer<z.ZodMiniObject<typeof engineShape>> & { host?: HostPolicy };

/** The transcriber the settings imply when TRANSCRIBER is not set. */
function withEngineDefaults<T extends EngineInput>(settings: T): T & { TRANSCRIBER: (typeof transcribers)[number] } {
  const whisperSet = Boolean(settings.WHISPER_CPP_BIN || settings.WHISPER_MODEL);
  return { ...settings, TRANSCRIBER: settings.TRANSCRIBER ?? (whisperSet ? 'whisper-cpp' : 'none') };
}

/** What each chosen engine needs, as zod issues so that every problem is named at once. */
function checkEngines(settings: EngineInput, ctx: z.core.$RefinementCtx): void {
  const need = (variable: keyof EngineInput, when: string) => {
    if (!settings[variable]) ctx.addIssue({ code: 'custom', path: [variable], message: `required when ${when}` });
  };
  // The CDK app checks the engine settings alone (no host): they are the AWS host's.
  const local = settings.host?.kind === 'local';
  const notLocal = (variable: 'ANALYZER' | 'TRANSCRIBER', why: string) =>
    ctx.addIssue({ code: 'custom', path: [variable], message: `${settings[variable]} cannot run on the local host: ${why}` });
  if (settings.ANALYZER === 'bedrock') {
    need('BEDROCK_MODEL_ID', 'ANALYZER=bedrock');
    if (local) notLocal('ANALYZER', 'its AWS credentials are those of its stand-ins; use ANALYZER=openai locally');
  }
  if (settings.ANALYZER === 'openai') {
    need('OPENAI_BASE_URL', 'ANALYZER=openai');
    need('OPENAI_MODEL', 'ANALYZER=openai');
    if (settings.OPENAI_API_KEY && settings.OPENAI_API_KEY_SECRET_ID) {
      ctx.addIssue({ code: 'custom', path: ['OPENAI_API_KEY_SECRET_ID'], message: 'set OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ID, not both' });
    }
  }
  if (settings.TRANSCRIBER === 'whisper-cpp') {
    need('WHISPER_CPP_BIN', 'TRANSCRIBER=whisper-cpp');
    need('WHISPER_MODEL', 'TRANSCRIBER=whisper-cpp');
  }
  if (settings.TRANSCRIBER === 'pocketsphinx') {
    // Checked here, at start-up: a missing package would otherwise fail the first analysis.
    if (!existsSync(settings.POCKETSPHINX_BIN)) {
      ctx.addIssue({ code: 'custom', path: ['POCKETSPHINX_BIN'], message: `${settings.POCKETSPHINX_BIN} does not exist (${POCKETSPHINX_INSTALL_HINT})` });
    }
    const missing = Object.values(pocketsphinxModelFiles(settings.POCKETSPHINX_MODEL_DIR)).filter((path) => !existsSync(path));
    if (missing.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['POCKETSPHINX_MODEL_DIR'],
        message: `the model is incomplete, ${missing.join(' and ')} missing (${POCKETSPHINX_INSTALL_HINT})`,
      });
    }
    if (settings.TRANSCRIBE_LANGUAGE_CODE !== 'en-US') {
      ctx.addIssue({ code: 'custom', path: ['TRANSCRIBE_LANGUAGE_CODE'], message: 'pocketsphinx runs with the US English model only: en-US' });
    }
  }
  if (settings.TRANSCRIBER === 'moonshine' && !settings.TRANSCRIBE_LANGUAGE_CODE.startsWith('en-')) {
    ctx.addIssue({
      code: 'custom',
      path: ['TRANSCRIBE_LANGUAGE_CODE'],
      message: 'moonshine runs with its English model only: en-US (aws-transcribe covers other languages)',
    });
  }
  if (settings.TRANSCRIBER === 'aws-transcribe' && local) {
    notLocal('TRANSCRIBER', 'Amazon Transcribe reads the media from S3 itself; use TRANSCRIBER=moonshine, pocketsphinx or whisper-cpp locally');
  }
}

const engineSchema = z.pipe(z.object(engineShape), z.transform(withEngineDefaults)).check(z.superRefine(checkEngines));
export type EngineConfig = Readonly<z.infer<typeof engineSchema>>;

/** The engine settings alone, checked as parseConfig checks them (the CDK app validates its context with it). */
export function parseEngineConfig(env: Readonly<Record<string, string | undefined>>): EngineConfig {
  return Object.freeze(parseOrThrow(engineSchema, env));
}

/**
 * The one reader of the host settings: HOST_KIND and LOCAL_ALLOW_LOOPBACK_TARGETS become the
 * configuration's `host`, and nothing else reads them.
 */
function withHostPolicy<T extends { HOST_KIND: HostPolicy['kind']; LOCAL_ALLOW_LOOPBACK_TARGETS: boolean }>({
  HOST_KIND,
  LOCAL_ALLOW_LOOPBACK_TARGETS,
  ...settings
}: T): Omit<T, 'HOST_KIND' | 'LOCAL_ALLOW_LOOPBACK_TARGETS'> & { host: HostPolicy } {
  return { ...settings, host: { kind: HOST_KIND, allowLoopbackTargets: LOCAL_ALLOW_LOOPBACK_TARGETS } };
}

const configSchema = z
  .pipe(
    z.object({
      TABLE_NAME: nonEmpty,
      MEDIA_BUCKET: nonEmpty,
      AWS_REGION: z._default(nonEmpty, 'us-east-1'),
      /** `local`: set by the local host for itself and its units (never by hand); absent on AWS. Read as `host` (withHostPolicy). */
      HOST_KIND: z._default(z.enum(['aws', 'local']), 'aws'),
      /** Local host only: loopback endpoints of DynamoDB Local and s3rver. */
      DYNAMODB_ENDPOINT: optionalUrl,
      S3_ENDPOINT: optionalUrl,
      /** Local host only: outbound fetches (sources, webhooks) may reach loopback targets, over plain http too (DESIGN §9). */
      LOCAL_ALLOW_LOOPBACK_TARGETS: flag('0', '1', '0'),
      /** AWS: where the console's sign-out sends the browser (Cognito's logout endpoint); absent: the console's start page. */
      CONSOLE_SIGN_OUT_URL: optionalUrl,
      /** The Secrets Manager secret holding the HMAC key of list cursors (AWS; the local host keeps its own key). */
      CURSOR_SECRET_ARN: optionalArn,
      /** Deployment-wide cap on observations per run (SPEC: at most 50; a deployment may set lower). */
      MAX_OBSERVATIONS_CAP: wholeNumber(1, 50, 50),
      /**
       * Seconds a warm authorizer answers a key (and its account's plan) from its cache; a revocation
       * takes effect within this time (DESIGN §11: 5 s at most). 0: no cache (the local host's setting).
       */
      API_KEY_CACHE_SECONDS: wholeNumber(0, 5, 5),
      /** Seconds an idempotency record is kept. */
      IDEMPOTENCY_TTL_SECONDS: wholeNumber(60, null, 86_400),
      LOG_LEVEL: z._default(z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
      /** ffmpeg/ffprobe binaries; absent: the npm-shipped static builds (local host, tests). */
      FFMPEG_PATH: optionalNonEmpty,
      FFPROBE_PATH: optionalNonEmpty,
      /** The caption fonts (presets.ts FONTS); absent: the `dejavu-fonts-ttf` package's ttf/ (the container image sets /opt/fonts). */
      CAPTION_FONTS_DIR: optionalNonEmpty,
      /** Render framing's face detector: folders of its model and of the TensorFlow.js WASM binaries; absent: the installed npm packages' own (the render image copies them to /opt/detector). */
      FACE_MODEL_DIR: optionalNonEmpty,
      TFJS_WASM_DIR: optionalNonEmpty,
      /** yt-dlp, which resolves and downloads provider page URLs of one-off analyses (DESIGN §10); absent: `yt-dlp` on PATH. */
      YT_DLP_PATH: optionalNonEmpty,
      /** The provider-resolver function's name (AWS; set on the routes that resolve provider pages, which invoke it). */
      PROVIDER_RESOLVER_FUNCTION: optionalNonEmpty,
      /** EventBridge bus for terminal events (AWS). Absent: event delivery is off for this deployment. */
      EVENT_BUS_NAME: optionalNonEmpty,
      /**
       * Webhook event delivery for this deployment (SPEC Events: optional per deployment and per account).
       * `false`: POST /v1/webhook-endpoints answers 503 event_delivery_unavailable and nothing is sent.
       */
      EVENT_DELIVERY_ENABLED: flag('false', 'true', 'true'),
      /** The webhook sender's queue (AWS): due deliveries wake the sender through it (SQS delay, or a schedule that sends to it). */
      WEBHOOK_QUEUE_URL: optionalUrl,
      /** The same queue's ARN: the target of one-time schedules for retries more than 15 minutes ahead. */
      WEBHOOK_QUEUE_ARN: optionalArn,
      /** The role EventBridge Scheduler assumes to send those schedules' messages to the queue. */
      WEBHOOK_SCHEDULER_ROLE_ARN: optionalArn,
      /** The schedule group of those one-time schedules. */
      WEBHOOK_SCHEDULE_GROUP: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
      /** Local host only: compresses the webhook retry schedule by this factor (tests: 0.001 turns 10 h into 36 s). */
      WEBHOOK_RETRY_SCALE: z._default(z.coerce.number().check(z.gt(0), z.maximum(1)), 1),
      /** Uploads larger than this use signed multipart part targets (one S3 PUT stops at 5 GiB). */
      MULTIPART_THRESHOLD_BYTES: wholeNumber(5 * MiB, 5 * GiB, 5 * GiB),
      /** Size of each multipart part but the last (S3: 5 MiB to 5 GiB, at most 10,000 parts). */
      MULTIPART_PART_SIZE_BYTES: wholeNumber(5 * MiB, 5 * GiB, 512 * MiB),
      /** The analysis state machine (AWS). Absent: the local host runs workflows in-process. */
      ANALYSIS_STATE_MACHINE_ARN: optionalArn,
      /** The batch state machine (AWS). Absent: the local host runs it in-process. */
      BATCH_STATE_MACHINE_ARN: optionalArn,
      /** The render state machine (AWS). Absent: the local host runs it in-process. */
      RENDER_STATE_MACHINE_ARN: optionalArn,
      /** Durable scanner batches; `false` answers POST /v1/scanner-batches with 503 scanner_batch_service_unavailable. */
      SCANNER_BATCHES_ENABLED: flag('false', 'true', 'true'),
      /**
       * Admission (DESIGN §6): container tasks (Fargate; child processes locally) the deployment runs
       * at once, and Amazon Transcribe jobs where Transcribe is the transcriber (absent: none are
       * run). Runs wait, fairly across accounts, for room under both (functions/workflows/admission.ts).
       * AWS: cdk.json context, given to every function.
       */
      CONTAINER_TASK_LIMIT: wholeNumber(1, null, 64),
      TRANSCRIBE_JOB_LIMIT: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
      /** Sources longer than this are analysed as bounded chunks, in parallel (DESIGN §7). */
      CHUNK_SECONDS: wholeNumber(10, 3_600, 600),
      /**
       * Where chunk signals are extracted: the ExtractChunkSignals function (`lambda`), or a container
       * task (`container`: Fargate on AWS, a child process locally). `auto`: containers for chunked sources.
       */
      SIGNALS_RUNNER: z._default(z.enum(['auto', 'lambda', 'container']), 'auto'),
      /**
       * Where one-off sources are acquired: the AcquireSource function (`lambda`) or a container task.
       * `auto`: the function for direct downloads of known size up to 256 MiB, containers otherwise.
       */
      ACQUISITION_RUNNER: z._default(z.enum(['auto', 'lambda', 'container']), 'auto'),
      /** `false`: this deployment cannot run production scanners; uploads, runs and batches answer 503 uploads_unavailable (SPEC). */
      UPLOADS_ENABLED: flag('false', 'true', 'true'),
      ...engineShape,
      /**
       * The console on AWS (docs/console.md): the origin CloudFront serves it from, the user pool's
       * managed-login domain and the console's app client; set on the sign-in functions only.
       */
      CONSOLE_URL: optionalUrl,
      COGNITO_DOMAIN: optionalUrl,
      COGNITO_CLIENT_ID: optionalNonEmpty,
      /** Time budget of the whole ffprobe inspection of one upload at completion. */
      PROBE_TIMEOUT_MS: wholeNumber(1_000, 900_000, 20_000),
    }),
    z.transform((settings) => withHostPolicy(withEngineDefaults(settings))),
  )
  .check(
    z.superRefine(checkEngines),
    z.superRefine((settings, ctx) => {
      if (settings.host.kind === 'local') return;
      const localOnly = 'is for the local host only (npm start), not for a process on AWS';
      // DESIGN §9: only the local host may reach loopback targets.
      if (settings.host.allowLoopbackTargets) ctx.addIssue({ code: 'custom', path: ['LOCAL_ALLOW_LOOPBACK_TARGETS'], message: localOnly });
      // The Standard Webhooks schedule is a promise to integrators: only a local host may compress it.
      if (settings.WEBHOOK_RETRY_SCALE !== 1) ctx.addIssue({ code: 'custom', path: ['WEBHOOK_RETRY_SCALE'], message: localOnly });
    }),
  );

export type Config = Readonly<z.infer<typeof configSchema>>;

function parseOrThrow<S extends z.ZodMiniType>(schema: S, env: unknown): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return result.data;
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  return Object.freeze(parseOrThrow(configSchema, env));
}

/** A setting only some functions are given, read where it is used: its absence there is a deployment error worth naming. */
export function requiredSetting(value: string | undefined, variable: string): string {
  if (!value) throw new Error(`Invalid configuration: ${variable} is not set`);
  return value;
}

let cached: Config | undefined;

/** The process configuration, read from the environment on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
