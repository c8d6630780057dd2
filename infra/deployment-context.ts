import { readFileSync } from 'node:fs';
import type { Node } from 'constructs';
import { engineContextKeys } from './constructs/engine-access.js';
import type { ConcurrencyReserve } from '../functions/runtime/contracts.js';
import { admittedRuns, type AdmissionLimits } from '../functions/workflows/admission.js';

/** cdk.json's "context": committed with the code, it is the deployment's source of truth. */
export function cdkJsonContext(file: URL = new URL('../cdk.json', import.meta.url)): Record<string, unknown> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
}

/** Operations settings read from CDK context (docs/configuration.md, "Deployment settings"). */
export const operationsContextKeys = {
  /** Addresses (comma-separated) subscribed by email to the alarm topic. */
  alarmEmail: 'alarmEmail',
  /** Steady-state requests per second the API's default stage admits. */
  apiThrottleRateLimit: 'apiThrottleRateLimit',
  /** Requests the API's default stage admits in a burst above the rate. */
  apiThrottleBurstLimit: 'apiThrottleBurstLimit',
  /** Concurrency reserved for the authorizer, which every request passes. */
  authorizerReservedConcurrency: 'authorizerReservedConcurrency',
  /** Concurrency reserved for each essential route's function (the route table's `essential`). */
  routeReservedConcurrency: 'routeReservedConcurrency',
} as const;

/** Admission (DESIGN §6, functions/workflows/admission.ts): the deployment's limits, read from CDK context. */
export const admissionContextKeys = {
  /** Container tasks (Fargate) the deployment runs at once; the VPC's subnets are sized for it. */
  containerTaskLimit: 'containerTaskLimit',
  /** Amazon Transcribe jobs the deployment runs at once, when the transcriber is aws-transcribe (its regional quota). */
  transcribeJobLimit: 'transcribeJobLimit',
} as const;

/** The admission limits when context sets none: a Fargate task quota of 1,000 and Transcribe's default of 250 jobs. */
export const admissionDefaults = { containerTasks: 1_000, transcribeJobs: 250 } as const;

/** Deployment switches and the prebuilt image, read from CDK context (docs/configuration.md, "Deployment settings"). */
export const deploymentContextKeys = {
  /** A prebuilt image for every container task (`-c containerImageUri=<uri>`), instead of building one. */
  containerImageUri: 'containerImageUri',
  /** `false`: uploads are off for this deployment (SPEC 503 uploads_unavailable). */
  uploadsEnabled: 'uploadsEnabled',
  /** `false`: event delivery is off for this deployment (SPEC Events). */
  eventDeliveryEnabled: 'eventDeliveryEnabled',
} as const;

/** The console's edge and sign-in (docs/console.md, "AWS"), read from CDK context. */
export const consoleContextKeys = {
  /** A custom domain for the console (`console.example.com`); with consoleCertificateArn. Absent: the distribution's own domain. */
  consoleDomainName: 'consoleDomainName',
  /** The ACM certificate (us-east-1, as CloudFront requires) for consoleDomainName. */
  consoleCertificateArn: 'consoleCertificateArn',
  /** The managed-login domain's prefix, unique in the region. Absent: `<stack name>-<AWS account>`. */
  consoleAuthDomainPrefix: 'consoleAuthDomainPrefix',
} as const;

export interface ConsoleContext {
  readonly domain?: { readonly name: string; readonly certificateArn: string };
  readonly authDomainPrefix?: string;
}

const DOMAIN_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
/** Cognito's rule for a prefix: lowercase letters, digits and hyphens, not at either end, and no reserved word. */
const AUTH_DOMAIN_PREFIX = /^(?!.*(aws|amazon|cognito))[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The console's settings from context; a domain needs its certificate and the reverse. */
export function consoleContext(node: Node): ConsoleContext {
  const text = (key: string): string | undefined => comparable(node.tryGetContext(key)) || undefined;
  const name = text(consoleContextKeys.consoleDomainName);
  const certificateArn = text(consoleContextKeys.consoleCertificateArn);
  const authDomainPrefix = text(consoleContextKeys.consoleAuthDomainPrefix);
  if (Boolean(name) !== Boolean(certificateArn)) {
    throw new Error('Invalid CDK context: consoleDomainName and consoleCertificateArn go together (the certificate in us-east-1, for CloudFront)');
  }
  if (name && !DOMAIN_NAME.test(name)) throw new Error(`Invalid CDK context: consoleDomainName must be a lowercase domain name, got ${JSON.stringify(name)}`);
  if (certificateArn && !/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/.test(certificateArn)) {
    throw new Error(`Invalid CDK context: consoleCertificateArn must be an ACM certificate in us-east-1, got ${JSON.stringify(certificateArn)}`);
  }
  if (authDomainPrefix && !AUTH_DOMAIN_PREFIX.test(authDomainPrefix)) {
    throw new Error(
      `Invalid CDK context: consoleAuthDomainPrefix must be lowercase letters, digits and hyphens without aws, amazon or cognito, got ${JSON.stringify(authDomainPrefix)}`,
    );
  }
  return { ...(name && certificateArn ? { domain: { name, certificateArn } } : {}), ...(authDomainPrefix ? { authDomainPrefix } : {}) };
}

/**
 * Context keys that shape what is deployed. CloudFormation keeps only what the last deploy said,
 * so a value given with `-c` alone reverts (silently) on the next deploy that omits it: they
 * belong in cdk.json.
 */
export const persistedContextKeys: readonly string[] = [
  ...Object.keys(engineContextKeys),
  ...Object.values(operationsContextKeys),
  ...Object.values(deploymentContextKeys),
  ...Object.values(admissionContextKeys),
  ...Object.values(consoleContextKeys),
];

/** `-c confirmContextChange=true` accepts a one-off deploy of settings cdk.json does not hold (`confirmEngineChange` is the same flag). */
const confirmContextChangeKeys = ['confirmContextChange', 'confirmEngineChange'] as const;

/** A context value as comparable text: `-c` gives strings, cdk.json any JSON (`100` and `"100"` are the same setting). */
const comparable = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Throws when the effective context (what the CLI passes: cdk.json merged with `-c`, cdk.context.json
 * and ~/.cdk.json) holds a persisted setting other than cdk.json's, unless the change is confirmed.
 */
export function checkPersistedContext(node: Node, committed: Readonly<Record<string, unknown>>): void {
  if (confirmContextChangeKeys.some((key) => comparable(node.tryGetContext(key)) === 'true')) return;
  const differing = persistedContextKeys.filter((key) => comparable(node.tryGetContext(key)) !== comparable(committed[key]));
  if (!differing.length) return;
  const shown = (value: unknown) => (comparable(value) === undefined ? 'unset' : JSON.stringify(comparable(value)));
  const changes = differing.map((key) => `${key}=${shown(node.tryGetContext(key))} (cdk.json: ${shown(committed[key])})`);
  throw new Error(
    `CDK context differs from cdk.json for settings that must persist between deploys: ${changes.join(', ')}. ` +
      'Given only on the command line, they would revert silently on the next deploy that omits them. ' +
      'Put them in cdk.json\'s "context" (committed with the code), or pass -c confirmContextChange=true to deploy them once.',
  );
}

/**
 * Each concurrency reserve's size per function: its context key, and the size when context sets
 * none. The authorizer runs for every request: at the stage's 100 rps and tens of ms each it needs
 * about 10, so 50 leaves room for cold starts and bursts; the four essential routes take 10 each.
 * 90 in all, out of a regional pool of 1,000 (AWS keeps 100 unreserved, so an account on a lower
 * quota must set these lower or raise it).
 */
export const concurrencyReserves = {
  authorizer: { contextKey: operationsContextKeys.authorizerReservedConcurrency, fallback: 50 },
  essentialRoute: { contextKey: operationsContextKeys.routeReservedConcurrency, fallback: 10 },
} as const satisfies Record<ConcurrencyReserve, { contextKey: string; fallback: number }>;

/** The reserved concurrency of each function in `reserve`, from context or its fallback. */
export function reservedConcurrencyContext(node: Node, reserve: ConcurrencyReserve): number {
  const { contextKey, fallback } = concurrencyReserves[reserve];
  return positiveNumberContext(node, contextKey, fallback, { integer: true });
}

/** A positive number from context (`-c` gives a string, cdk.json a number), or `fallback` when unset. */
export function positiveNumberContext(node: Node, key: string, fallback: number, { integer = false } = {}): number {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null) return fallback;
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new Error(`Invalid CDK context: ${key} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** The admission limits from context (`-c containerTaskLimit=...`, cdk.json), or their defaults; limits that admit no run fail the synth. */
export function admissionContext(node: Node): AdmissionLimits & { transcribeJobs: number } {
  const limits = {
    containerTasks: positiveNumberContext(node, admissionContextKeys.containerTaskLimit, admissionDefaults.containerTasks, { integer: true }),
    transcribeJobs: positiveNumberContext(node, admissionContextKeys.transcribeJobLimit, admissionDefaults.transcribeJobs, { integer: true }),
  };
  admittedRuns(limits);
  return limits;
}

const EMAIL = /^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/;

/** The addresses of `alarmEmail`: one, several comma-separated, or (in cdk.json) a list. */
export function emailsContext(node: Node, key: string): string[] {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return [];
  const listed: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  const emails = listed.map((email) => (typeof email === 'string' ? email.trim() : ''));
  if (emails.some((email) => !EMAIL.test(email))) {
    throw new Error(`Invalid CDK context: ${key} must be an email address (or several, comma-separated), got ${JSON.stringify(value)}`);
  }
  return emails;
}
