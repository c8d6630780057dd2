import { z } from 'zod';

/**
 * The one config reader. Every setting the functions use is named and validated here, once,
 * and a bad value fails loudly at start-up rather than at the first request that needs it.
 */
const optionalUrl = z.url().optional();
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

const configSchema = z.object({
  TABLE_NAME: z.string().min(1),
  MEDIA_BUCKET: z.string().min(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Local host only: loopback endpoints of DynamoDB Local and s3rver. */
  DYNAMODB_ENDPOINT: optionalUrl,
  S3_ENDPOINT: optionalUrl,
  /** HMAC key for list cursors: literal (local host) or a Secrets Manager ARN (AWS). */
  CURSOR_SECRET: z.string().min(32).optional(),
  CURSOR_SECRET_ARN: z.string().startsWith('arn:').optional(),
  /** Deployment-wide cap on observations per run (SPEC: at most 50; a deployment may set lower). */
  MAX_OBSERVATIONS_CAP: z.coerce.number().int().min(1).max(50).default(50),
  /** Seconds an idempotency record is kept. */
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
  /** ffmpeg/ffprobe binaries; absent: the npm-shipped static builds (local host, tests). */
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  /** EventBridge bus for terminal events (AWS). Absent and no LOCAL_DATA_DIR: event delivery is off. */
  EVENT_BUS_NAME: z.string().min(1).optional(),
  /** Local host only: its data directory; events are appended to `<LOCAL_DATA_DIR>/events.ndjson`. */
  LOCAL_DATA_DIR: z.string().min(1).optional(),
  /** Uploads larger than this use signed multipart part targets (one S3 PUT stops at 5 GiB). */
  MULTIPART_THRESHOLD_BYTES: z.coerce.number().int().min(5 * MiB).max(5 * GiB).default(5 * GiB),
  /** Size of each multipart part but the last (S3: 5 MiB to 5 GiB, at most 10,000 parts). */
  MULTIPART_PART_SIZE_BYTES: z.coerce.number().int().min(5 * MiB).max(5 * GiB).default(512 * MiB),
  /** The analysis state machine (AWS). Absent: the local host runs workflows in-process. */
  ANALYSIS_STATE_MACHINE_ARN: z.string().startsWith('arn:').optional(),
  /** Sources longer than this are analysed as bounded chunks, in parallel (DESIGN §7). */
  CHUNK_SECONDS: z.coerce.number().int().min(10).max(3_600).default(600),
  /** Which Analyzer answers scanners (DESIGN §7). */
  ANALYZER: z.enum(['local']).default('local'),
  /** Which Transcriber feeds the analyzer words; none by default. */
  TRANSCRIBER: z.enum(['none']).default('none'),
  /** Time budget of the whole ffprobe inspection of one upload at completion. */
  PROBE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(900_000).default(20_000),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  if (!result.data.CURSOR_SECRET && !result.data.CURSOR_SECRET_ARN) {
    throw new Error('Invalid configuration: set CURSOR_SECRET or CURSOR_SECRET_ARN');
  }
  return Object.freeze(result.data);
}

let cached: Config | undefined;

/** The process configuration, read from the environment on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
