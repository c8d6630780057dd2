import { z } from 'zod';

/**
 * The one config reader. Every setting the functions use is named and validated here, once,
 * and a bad value fails loudly at start-up rather than at the first request that needs it.
 */
const optionalUrl = z.url().optional();

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
