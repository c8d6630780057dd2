/**
 * Shared fixtures of the unit tests: domain records, API Gateway v2 events and the environment
 * the route handlers read through config(). Nothing here touches the network.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import type { Account } from '../../functions/domain/accounts/model.js';
import type { UploadRecord } from '../../functions/domain/uploads/model.js';
import type { ApiEvent, AuthorizerContext } from '../../functions/http/types.js';
import { lambdaContext } from '../../functions/local/lambda-context.js';
import { pocketsphinxModelFiles } from '../../functions/config.js';

export const ACCOUNT_ID = 'acct_0190a0b0c0d07e0f8a9b0c1d2e3f4a5b';
export const OTHER_ACCOUNT_ID = 'acct_0190a0b0c0d07e0f8a9b0c1d2e3f4a5c';
export const TABLE_NAME = 'unit-table';
export const CURSOR_SECRET = 'unit-test-cursor-secret-of-at-least-32-chars';
export const CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:unit-cursor';

export function testAccount(overrides: Partial<Account> = {}): Account {
  return {
    accountId: ACCOUNT_ID,
    plan: 'creator',
    creditsBalance: 100,
    limitOverrides: {},
    maxObservations: null,
    trustedHosts: [],
    concurrencyInUse: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** What every route Lambda finds in its environment on AWS (see infra/stack.ts). */
export const serviceEnv = {
  TABLE_NAME,
  MEDIA_BUCKET: 'unit-media',
  AWS_REGION: 'eu-west-1',
  LOG_LEVEL: 'SILENT',
  AWS_ACCESS_KEY_ID: 'AKIAUNITTEST',
  AWS_SECRET_ACCESS_KEY: 'unit-test-secret',
} as const;

/**
 * Sets the service environment and forgets every loaded module, so the next dynamic import of
 * a handler builds its config() and services from this environment.
 */
export function stubServiceEnv(extra: Record<string, string | undefined> = {}): void {
  for (const [name, value] of Object.entries({ ...serviceEnv, ...extra })) vi.stubEnv(name, value);
  // The local host's settings (HOST_KIND=local among them), which the integration project's global setup puts in the environment
  // that every test worker inherits: a unit test runs as a function on AWS does.
  for (const localOnly of ['HOST_KIND', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'LOCAL_ALLOW_LOOPBACK_TARGETS', 'YT_DLP_PATH', 'WEBHOOK_RETRY_SCALE'])
    vi.stubEnv(localOnly, extra[localOnly]);
  // Lists read the cursor key through the AWS host: tests that page mock Secrets Manager for it.
  vi.stubEnv('CURSOR_SECRET_ARN', CURSOR_SECRET_ARN);
  vi.resetModules();
}

export interface EventOptions {
  method?: string;
  path?: string;
  routeKey?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
  /** The authorizer's verdict; `null` leaves the authorizer context out entirely. */
  auth?: AuthorizerContext | null;
  requestId?: string;
}

/** An API Gateway HTTP API (payload 2.0) event as a route Lambda receives it. */
export function apiEvent(options: EventOptions = {}): ApiEvent {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/v1/account';
  const requestId = options.requestId ?? 'req-unit-0001';
  const auth = options.auth === undefined ? { accountId: ACCOUNT_ID } : options.auth;
  const event = {
    version: '2.0',
    routeKey: options.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers: options.headers ?? {},
    ...(options.query ? { queryStringParameters: options.query } : {}),
    ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    isBase64Encoded: options.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'unit',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'unit' },
      requestId,
      routeKey: options.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 1767225600000,
      ...(auth ? { authorizer: { lambda: auth } } : {}),
    },
  };
  return event as ApiEvent;
}

/** The event the Lambda authorizer receives (REQUEST type, payload 2.0). */
export function authorizerEvent(headers: Record<string, string> | undefined): APIGatewayRequestAuthorizerEventV2 {
  const base = apiEvent({ auth: null });
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:eu-west-1:123456789012:unit/$default/GET/v1/account',
    identitySource: [],
    routeKey: base.routeKey,
    rawPath: base.rawPath,
    rawQueryString: base.rawQueryString,
    cookies: [],
    ...(headers ? { headers } : {}),
    requestContext: base.requestContext,
  };
}

export const unitContext = (name = 'unit-function', requestId = 'req-unit-0001'): Context => lambdaContext(name, requestId);

/** Parses a handler's JSON body without `any` leaking into the assertions. */
export function jsonBody<T = Record<string, unknown>>(response: { body?: string | undefined }): T {
  return JSON.parse(response.body ?? 'null') as T;
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

/** A pending audio upload record of the test account; tests override what they exercise. */
export const uploadRecord = (overrides: Partial<UploadRecord> = {}): UploadRecord => ({
  uploadId: 'upl_1',
  status: 'pending',
  mediaKind: 'audio',
  filename: 'f.mp3',
  contentType: 'audio/mpeg',
  sizeBytes: 1,
  objectKey: `accounts/${ACCOUNT_ID}/uploads/upl_1`,
  multipart: null,
  expiresAt: '2026-03-01T10:15:00.000Z',
  retentionDays: 7,
  retentionExpiresAt: null,
  durationMs: null,
  streams: null,
  error: null,
  readyAt: null,
  failedAt: null,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  ...overrides,
});

/** A stand-in pocketsphinx installation in a temporary folder: empty files where Debian puts them (the checks look for the files, not at them). */
export function standInPocketsphinx(): { root: string; bin: string; modelDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'pocketsphinx-stand-in-'));
  const bin = join(root, 'pocketsphinx_continuous');
  const modelDir = join(root, 'model');
  const model = pocketsphinxModelFiles(modelDir);
  writeFileSync(bin, '');
  mkdirSync(model.acousticModel, { recursive: true });
  writeFileSync(model.languageModel, '');
  writeFileSync(model.dictionary, '');
  return { root, bin, modelDir };
}
