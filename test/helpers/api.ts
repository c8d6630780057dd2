/**
 * A tiny typed HTTP client for the integration tests, the error-envelope assertion every test
 * uses, and accounts minted through the real admin CLI (functions/admin/cli.ts).
 */
import { spawn } from 'node:child_process';
import { request as httpRequest, type Agent } from 'node:http';
import { expect, inject } from 'vitest';
import { childEnv, repoRoot, TEST_REQUEST_RATE, tsxCli } from './processes.js';

export { childEnv, repoRoot, tsxCli };

// ---------------------------------------------------------------------------------------------
// Public shapes, as an integrator reads them (DESIGN §3, §4).

export type ScannerType = 'find_moments' | 'monitor' | 'classifier' | 'scorer' | 'summarizer' | 'extractor';
export type MetadataValue = string | number | boolean | null;

export interface Scanner {
  object: 'scanner';
  scanner_id: string;
  version: number;
  name: string;
  instructions: string;
  type: ScannerType;
  profile: 'conversation' | 'gameplay' | null;
  max_observations: number | null;
  min_seconds: number | null;
  max_seconds: number | null;
  output: { labels?: string[]; fields?: string[] } | null;
  metadata: Record<string, MetadataValue>;
  created_at: string;
  updated_at: string;
}

export interface List<T> {
  object: 'list';
  data: T[];
  next_cursor: string | null;
}

export interface Account {
  object: 'account';
  account_id: string;
  plan: string;
  wallet: { balance_credits: number; credit_unit_seconds: number };
  limits: { max_video_bytes: number; max_audio_bytes: number; max_source_minutes: number; max_observations: number };
  retention: { days: number };
  concurrency: { limit: number; in_use: number; queued: number };
  built_in_providers: { id: string; name: string; kind: string }[];
  trusted_hosts: string[];
  created_at: string;
  updated_at: string;
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

// ---------------------------------------------------------------------------------------------
// HTTP client

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  /** The raw response text, for byte-level comparisons. */
  text: string;
}

export interface SendOptions {
  /** Encoded with JSON.stringify. */
  json?: unknown;
  /** Sent exactly as given (malformed JSON, odd encodings). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Client {
  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  send<T = unknown>(method: string, path: string, options?: SendOptions): Promise<ApiResponse<T>>;
}

/** Sees every response api() receives, before the test does; throwing fails the request (and the test). */
export type ResponseHook = (response: { method: string; url: string; status: number; headers: Headers; text: string }) => void;
let responseHook: ResponseHook | undefined;
let lastAnswerAt = Date.now();

/**
 * Opt-in: the integration project validates every response against openapi.json this way
 * (test/helpers/openapi-contract-setup.ts). `undefined` removes the hook.
 */
export function onResponse(hook: ResponseHook | undefined): void {
  responseHook = hook;
}

/** `api(baseUrl, key)`: requests with `Authorization: Bearer <key>` (none when key is undefined). */
export function api(baseUrl: string, apiKey?: string): Client {
  const send = async <T>(method: string, path: string, options: SendOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, options.headers);
    const started = Date.now();
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }).catch((error: unknown) => {
      throw new Error(`${method} ${baseUrl}${path} failed after ${Date.now() - started} ms (${Date.now() - lastAnswerAt} ms since the last answer)`, {
        cause: error,
      });
    });
    lastAnswerAt = Date.now();
    const text = await response.text();
    responseHook?.({ method, url: response.url, status: response.status, headers: response.headers, text });
    let parsed: unknown = text;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      // not JSON: the test sees the text itself
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };
  return {
    send,
    get: (path, headers) => send('GET', path, headers ? { headers } : {}),
    post: (path, body, headers) => send('POST', path, { json: body, ...(headers ? { headers } : {}) }),
    patch: (path, body, headers) => send('PATCH', path, { json: body, ...(headers ? { headers } : {}) }),
  };
}

/** The shared host's client for an account key. */
export const clientFor = (apiKey: string | undefined): Client => api(inject('baseUrl'), apiKey);

// ---------------------------------------------------------------------------------------------
// Assertions

const errorKeys = ['type', 'code', 'message', 'param', 'request_id'];

/**
 * The DESIGN §4 envelope: status, code, (param), JSON content-type, and an x-request-id header
 * equal to the body's request_id. Returns the error object for further checks.
 */
export function expectError(response: ApiResponse<unknown>, status: number, code: string, param?: string): ErrorBody['error'] {
  const context = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, context).toBe(status);
  expectEnvelope(response);
  const { error } = response.body as ErrorBody;
  expect(error.code, context).toBe(code);
  if (param !== undefined) expect(error.param, context).toBe(param);
  return error;
}

/** Any error: the envelope shape with no extra fields, JSON, x-request-id equal to request_id. */
export function expectEnvelope(response: ApiResponse<unknown>): void {
  const context = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.headers.get('content-type'), context).toMatch(/^application\/json/);
  expect(response.body, context).toBeTypeOf('object');
  expect(response.body, context).not.toBeNull();
  const body = response.body as ErrorBody;
  expect(Object.keys(body), context).toEqual(['error']);
  for (const field of ['type', 'code', 'message', 'request_id'] as const) expect(body.error[field], `${field} in ${context}`).toBeTypeOf('string');
  for (const key of Object.keys(body.error)) expect(errorKeys, `unexpected error field ${key}`).toContain(key);
  if (body.error.param !== undefined) expect(typeof body.error.param).toBe('string');
  expect(body.error.request_id.length).toBeGreaterThan(0);
  expect(response.headers.get('x-request-id'), context).toBe(body.error.request_id);
  // A 5xx never leaks a stack trace; no error message does.
  expect(body.error.message, context).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

/** A 4xx (never 5xx) answered in the envelope. */
export function expectClientError(response: ApiResponse<unknown>): void {
  const context = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, context).toBeGreaterThanOrEqual(400);
  expect(response.status, context).toBeLessThan(500);
  expectEnvelope(response);
}

export const scannerIdPattern = /^scn_[0-9a-f]{32}$/;
export const isoMillisPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---------------------------------------------------------------------------------------------
// Scanner bodies

/** A valid create body for each type. */
export function validScanner(type: ScannerType, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = { name: `${type} scanner`, instructions: 'Find the loud moments with a scene cut.', type };
  if (type === 'classifier') base.output = { labels: ['gameplay', 'talking head', 'menu'] };
  if (type === 'extractor') base.output = { fields: ['duration', 'scene_count', 'loudest_moment'] };
  if (type === 'find_moments') Object.assign(base, { min_seconds: 10, max_seconds: 60, profile: 'gameplay' });
  return { ...base, ...extra };
}

export const scannerTypes: readonly ScannerType[] = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'];

/** Creates a scanner and fails the test unless the API answered 201. */
export async function createScanner(client: Client, body: Record<string, unknown>, headers?: Record<string, string>): Promise<Scanner> {
  const response = await client.post<Scanner>('/v1/scanners', body, headers);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Every page of a list, following next_cursor. */
export async function listAll<T>(client: Client, path: string, limit: number): Promise<{ pages: List<T>[]; items: T[] }> {
  const pages: List<T>[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const query: string = `${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response: ApiResponse<List<T>> = await client.get<List<T>>(`${path}${query}`);
    expect(response.status, response.text).toBe(200);
    pages.push(response.body);
    cursor = response.body.next_cursor;
    if (pages.length > 100) throw new Error('pagination does not end');
  } while (cursor);
  return { pages, items: pages.flatMap((page) => page.data) };
}

// ---------------------------------------------------------------------------------------------
// Admin CLI

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `tsx functions/admin/cli.ts <args>` (= `npm run admin -- <args>`) against the host whose data
 * dir is `dataDir`. Spawned without npx/npm: the CLI is the same, and the suite spends about a
 * third less CPU per call, which matters with dozens of calls on two cores.
 */
export function runAdmin(args: string[], dataDir: string = inject('dataDir'), env: Record<string, string> = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsxCli, 'functions/admin/cli.ts', ...args], {
      cwd: repoRoot,
      env: childEnv({ ...env, LOCAL_DATA_DIR: dataDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The one JSON object the CLI prints on success; fails the test otherwise. */
export function adminOutput<T>(result: ProcessResult): T {
  expect(result.code, `admin CLI failed: ${result.stderr}`).toBe(0);
  const lines = result.stdout.trim().split('\n');
  expect(lines, `stdout: ${result.stdout}`).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as T;
}

export interface NewAccount {
  accountId: string;
  apiKey: string;
}

export interface AccountOptions {
  plan?: 'beginner' | 'hobby' | 'creator' | 'enterprise';
  credits?: number;
  maxObservations?: number;
  /** `plan`: the plan's request rate; default: one far above any test's pace (TEST_REQUEST_RATE). */
  requestRate?: 'plan' | { perSecond: number; burst: number };
}

/** A fresh account (and its key) from `accounts create`, so a test file owns its data. */
export async function createAccount(options: AccountOptions = {}, dataDir?: string): Promise<NewAccount> {
  const args = ['accounts', 'create', '--plan', options.plan ?? 'creator', '--credits', String(options.credits ?? 1000)];
  if (options.maxObservations !== undefined) args.push('--max-observations', String(options.maxObservations));
  const rate = options.requestRate ?? TEST_REQUEST_RATE;
  if (rate !== 'plan') args.push('--requests-per-second', String(rate.perSecond), '--request-burst', String(rate.burst));
  const created = adminOutput<{ account_id: string; api_key: string }>(await runAdmin(args, dataDir));
  return { accountId: created.account_id, apiKey: created.api_key };
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP, for request targets fetch would normalise away (`//[`, `*`, absolute-form).

export function rawRequest(
  baseUrl: string,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; agent?: Agent; timeoutMs?: number } = {},
): Promise<ApiResponse<unknown>> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: target, headers: options.headers ?? {}, ...(options.agent ? { agent: options.agent } : {}) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          let body: unknown = text;
          try {
            body = text ? (JSON.parse(text) as unknown) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers, body, text });
        });
      },
    );
    req.on('error', reject);
    if (options.timeoutMs !== undefined) {
      const timeoutMs = options.timeoutMs;
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    }
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
