/**
 * Smoke test of a deployment, AWS or the local host, through its public HTTP API only:
 *
 *   npm run smoke -- --base-url URL --api-key KEY [--timeout-seconds 300] [--poll-seconds 5] [--allow-no-moments]
 *
 * It walks the main path once (README "A 5-minute tour"): read the account, generate a 12 s video
 * (H.264 + AAC, a loud burst at 3-4 s, a scene cut at 10 s) with the project's ffmpeg
 * (FFMPEG_PATH overrides), upload it (PUT with every upload header), complete it, create a
 * find_moments scanner, run it, poll the run and its progress until terminal, read observations
 * and moments, and check that the run was charged ceil(duration / 60) credits and the balance
 * dropped by exactly that. One line per step with its time; the first failure stops it with exit
 * status 1, naming the step, the HTTP status, the error code and message and the request_id.
 * Usage errors exit 2. The API key and the signed upload URL are never printed.
 *
 * The balance check is exact, so use an account nothing else spends from while it runs.
 * Every request gives up after 30 s (API Gateway's own limit); every wait after --timeout-seconds.
 * No vitest here (the CI test runs this file as a subprocess): only types come from the helpers.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Account, ErrorBody, List, Scanner } from '../helpers/api.js';
import { shortSource } from '../helpers/ground-truth-media.js';
import type { MomentList, Observation, Progress, Run, Upload } from '../helpers/runs.js';
import { elapsed, STEPS, stepLine, type StepName } from './steps.js';

const VIDEO_SECONDS = 12;
const REQUEST_TIMEOUT_MS = 30_000;
const USAGE = `usage: npm run smoke -- --base-url URL --api-key KEY [options]

  --base-url URL          the deployment (the ApiUrl output of cdk deploy, or the local host's URL); env SMOKE_BASE_URL
  --api-key KEY           an API key of an account with at least 1 credit that nothing else spends from; env SMOKE_API_KEY
  --timeout-seconds N     how long each wait (upload ready, run terminal) may take (default 300)
  --poll-seconds N        interval of run and progress polls (default 5, with up to 20% jitter)
  --allow-no-moments      accept a completed run with zero moments (model analyzers may answer none)`;

type UploadRecord = Upload & { upload_method: string; retention_expires_at: string | null };

// ---------------------------------------------------------------------------------------------
// Settings

interface Settings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  pollMs: number;
  allowNoMoments: boolean;
}

class UsageError extends Error {}

function readSettings(argv: string[]): Settings {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'timeout-seconds': { type: 'string', default: '300' },
        'poll-seconds': { type: 'string', default: '5' },
        'allow-no-moments': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.help) throw new UsageError('');
  const baseUrl = (parsed['base-url'] ?? process.env.SMOKE_BASE_URL ?? '').replace(/\/+$/, '');
  const apiKey = parsed['api-key'] ?? process.env.SMOKE_API_KEY ?? '';
  if (!/^https?:\/\/[^/]+/.test(baseUrl) || !URL.canParse(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
  if (!apiKey) throw new UsageError('--api-key is required');
  const seconds = (name: 'timeout-seconds' | 'poll-seconds'): number => {
    const value = Number(parsed[name]);
    if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number`);
    return value * 1000;
  };
  return { baseUrl, apiKey, timeoutMs: seconds('timeout-seconds'), pollMs: seconds('poll-seconds'), allowNoMoments: parsed['allow-no-moments'] };
}

// ---------------------------------------------------------------------------------------------
// Output: every line goes through `say`, which blanks every secret it was told about.

const secrets: string[] = [];
const redact = (text: string): string =>
  secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text).replace(/(X-Amz-[A-Za-z]+=)[^&\s"'<>]+/g, '$1[redacted]');
const say = (line: string): void => console.log(redact(line));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A failed check; `reply` is the response it is about (its status and request_id are printed). */
class SmokeFailure extends Error {
  constructor(
    message: string,
    readonly reply?: Reply<unknown>,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

interface Reply<T> {
  status: number;
  body: T;
  requestId: string | null;
  text: string;
}

interface CallOptions {
  body?: unknown;
  /** Sent as Idempotency-Key; a keyed POST is safe to retry. */
  idempotencyKey?: string;
  /** Retry transient failures (no response, 429, 502-504): reads, keyed POSTs, completion. */
  retry?: boolean;
}

const TRANSIENT = new Set([429, 502, 503, 504]);

/** `HTTP 401 unauthorized: Invalid API key (request_id 7f3c...)`, or what there is of it. */
function describeReply(reply: Reply<unknown>): string {
  const error = (reply.body as Partial<ErrorBody> | undefined)?.error;
  const what = error ? `${error.code}: ${error.message}` : reply.text.replace(/\s+/g, ' ').slice(0, 200) || '(empty body)';
  return `HTTP ${reply.status} ${what} (request_id ${error?.request_id ?? reply.requestId ?? 'none'})`;
}

/** A failed step's reason: the failure, with the status and request_id of the reply it is about. */
function failureReason(error: unknown): string {
  if (!(error instanceof SmokeFailure)) return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const { reply } = error;
  if (!reply || error.message.startsWith('HTTP ')) return error.message;
  return `${error.message} (HTTP ${reply.status}, request_id ${reply.requestId ?? 'none'})`;
}

function noResponse(error: unknown, what: string): SmokeFailure {
  const cause = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  return new SmokeFailure(timedOut ? `${what}: no response within ${REQUEST_TIMEOUT_MS / 1000} s` : `${what}: no response (${cause})`);
}

function client(settings: Settings) {
  async function once<T>(method: string, path: string, options: CallOptions): Promise<Reply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${settings.apiKey}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${settings.baseUrl}${path}`, {
        method,
        headers,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
    } catch (error) {
      throw noResponse(error, `${method} ${path}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    // API Gateway answers its own errors with `apigw-requestid`; the service adds x-request-id.
    const requestId = response.headers.get('x-request-id') ?? response.headers.get('apigw-requestid');
    return { status: response.status, body: body as T, requestId, text };
  }

  async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt === 3 || !options.retry;
      try {
        const reply = await once<T>(method, path, options);
        const inProgress = reply.status === 409 && (reply.body as Partial<ErrorBody> | undefined)?.error?.code === 'idempotency_request_in_progress';
        if (last || !(TRANSIENT.has(reply.status) || inProgress)) return reply;
      } catch (error) {
        if (last && attempt > 1 && error instanceof SmokeFailure) throw new SmokeFailure(`${error.message} after ${attempt} attempts`);
        if (last) throw error;
      }
      await sleep(1000 * attempt);
    }
  }

  /** The reply's body when its status is `status`; otherwise the step fails with the reply. */
  async function expect<T>(status: number, method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
    const reply = await call<T>(method, path, options);
    if (reply.status !== status) throw new SmokeFailure(describeReply(reply), reply);
    return reply;
  }

  return {
    call,
    get: <T>(path: string) => expect<T>(200, 'GET', path, { retry: true }),
    expect,
  };
}

// ---------------------------------------------------------------------------------------------
// Steps

async function smoke(settings: Settings): Promise<boolean> {
  secrets.push(settings.apiKey);
  const api = client(settings);
  const started = Date.now();
  say(`Smoke test of ${settings.baseUrl} (${STEPS.length} steps; waits up to ${settings.timeoutMs / 1000} s)`);

  /** Runs one step; prints `ok` with its time and `detail`, or `FAIL` with the reason. */
  async function step<T>(name: StepName, action: (detail: (text: string) => void) => Promise<T>): Promise<T> {
    const stepStart = Date.now();
    let detail = '';
    try {
      const value = await action((text) => (detail = text));
      say(stepLine('ok', name, Date.now() - stepStart, detail));
      return value;
    } catch (error) {
      say(stepLine('FAIL', name, Date.now() - stepStart, failureReason(error)));
      throw new StopSmoke();
    }
  }

  const check = (condition: boolean, message: string, reply?: Reply<unknown>): void => {
    if (!condition) throw new SmokeFailure(message, reply);
  };

  try {
    const accountBefore = await step('read account', async (detail) => {
      const { body } = await api.get<Account>('/v1/account');
      check(typeof body.wallet?.balance_credits === 'number', 'the account has no wallet.balance_credits');
      detail(`${body.account_id}, plan ${body.plan}, balance ${body.wallet.balance_credits} credits`);
      return body;
    });

    const video = await step('generate video', async (detail) => {
      const path = await shortSource(VIDEO_SECONDS, { width: 320, height: 180, loudBursts: true });
      const bytes = await readFile(path);
      detail(`${VIDEO_SECONDS} s H.264/AAC 320x180, loud burst at 3-4 s, scene cut at 10 s, ${bytes.length} bytes`);
      return bytes;
    });

    const created = await step('create upload', async (detail) => {
      const { body } = await api.expect<UploadRecord>(201, 'POST', '/v1/uploads', {
        body: { filename: 'smoke-test.mp4', content_type: 'video/mp4', size_bytes: video.length },
      });
      if (body.upload_url) secrets.push(body.upload_url);
      check(Boolean(body.upload_url && body.upload_method && body.upload_headers), `upload ${body.upload_id} has no single signed target`);
      detail(`${body.upload_id} (${body.upload_method}, headers: ${Object.keys(body.upload_headers ?? {}).join(', ') || 'none'})`);
      return body;
    });

    await step('upload bytes', async (detail) => {
      let response: Response;
      try {
        response = await fetch(created.upload_url ?? '', {
          method: created.upload_method,
          headers: created.upload_headers ?? {},
          body: video,
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
      } catch (error) {
        throw noResponse(error, `${created.upload_method} of the bytes`);
      }
      const text = await response.text();
      // S3's error bodies can echo the signed request: print only its code and request id.
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? 'no error code';
      const requestId = response.headers.get('x-amz-request-id') ?? 'none';
      check(response.ok, `HTTP ${response.status} from the signed target: ${code} (x-amz-request-id ${requestId})`);
      detail(`${video.length} bytes, HTTP ${response.status}`);
    });

    const upload = await step('complete upload', async (detail) => {
      const deadline = Date.now() + settings.timeoutMs;
      for (;;) {
        const reply = await api.call<UploadRecord>('POST', `/v1/uploads/${created.upload_id}/complete`, { retry: true });
        const code = (reply.body as unknown as Partial<ErrorBody> | undefined)?.error?.code;
        // 409 upload_object_missing: the bytes are not visible yet; safe to retry (DESIGN §4).
        if (reply.status === 409 && code === 'upload_object_missing' && Date.now() < deadline) {
          await sleep(1000);
          continue;
        }
        check(reply.status === 200, describeReply(reply), reply);
        const body = reply.body;
        check(body.status === 'ready', `upload ${body.upload_id} is ${body.status}: ${body.error?.code ?? ''} ${body.error?.message ?? ''}`.trim(), reply);
        check(
          body.media_kind === 'video' && (body.duration_ms ?? 0) > 0,
          `upload ${body.upload_id} is ${body.media_kind}, duration_ms ${body.duration_ms}`,
          reply,
        );
        detail(`${body.upload_id} ready, ${body.media_kind}, ${((body.duration_ms ?? 0) / 1000).toFixed(2)} s`);
        return body;
      }
    });
    const sourceMs = upload.duration_ms ?? 0;
    const expectedCredits = Math.ceil(sourceMs / 60_000);

    const scanner = await step('create scanner', async (detail) => {
      const { body } = await api.expect<Scanner>(201, 'POST', '/v1/scanners', {
        idempotencyKey: randomUUID(),
        retry: true,
        body: {
          name: 'smoke test',
          type: 'find_moments',
          instructions: 'Find the scene cuts and the loud bursts.',
          min_seconds: 5,
          max_seconds: 10,
        },
      });
      check(body.version === 1, `scanner ${body.scanner_id} has version ${body.version}, expected 1`);
      detail(`${body.scanner_id} v${body.version}, find_moments`);
      return body;
    });

    const accepted = await step('start run', async (detail) => {
      const reply = await api.expect<Run>(202, 'POST', `/v1/scanners/${scanner.scanner_id}/runs`, {
        idempotencyKey: randomUUID(),
        retry: true,
        body: { upload_id: upload.upload_id, metadata: { smoke_test: true } },
      });
      const run = reply.body;
      check(
        run.media_kind === 'video' && /^ana_[0-9a-f]{32}$/.test(run.analysis_id ?? ''),
        `run ${run.run_id}: media_kind ${run.media_kind}, analysis_id ${run.analysis_id}`,
        reply,
      );
      detail(`${run.run_id} ${run.status}, analysis ${run.analysis_id}, ${run.billing?.credits} credit(s) ${run.billing?.state}`);
      return run;
    });

    const run = await step('wait for run', async (detail) => {
      const deadline = Date.now() + settings.timeoutMs;
      const waitStart = Date.now();
      let lastFraction = 0;
      let lastLine = '';
      for (;;) {
        const current = await api.get<Run>(`/v1/runs/${accepted.run_id}`);
        const progress = await api.get<Progress>(`/v1/analyses/${accepted.analysis_id}/progress`);
        const p = progress.body;
        check(p.run_id === accepted.run_id && p.analysis_id === accepted.analysis_id, `progress names run ${p.run_id}, analysis ${p.analysis_id}`, progress);
        check(p.fraction >= lastFraction, `progress went down from ${lastFraction} to ${p.fraction}`, progress);
        lastFraction = p.fraction;
        const status = current.body.status;
        const queue = p.queue_position !== null ? `, queue position ${p.queue_position}` : '';
        const chunks = p.chunks_total !== null ? `, chunks ${p.chunks_done}/${p.chunks_total}` : '';
        const line = `     run ${status}, progress ${p.fraction.toFixed(2)}${queue}${chunks}`;
        if (line !== lastLine) say(`${line}  (${elapsed(Date.now() - waitStart)})`);
        lastLine = line;
        if (status === 'failed') {
          const error = current.body.error;
          throw new SmokeFailure(`run ${accepted.run_id} failed: ${error?.code ?? 'no code'}: ${error?.message ?? 'no message'}`, current);
        }
        if (status === 'completed') {
          check(p.status === 'completed' && p.fraction === 1, `the run is completed but its progress is ${p.status} ${p.fraction}`, progress);
          detail(`completed, ${current.body.observation_count} observation(s)`);
          return current.body;
        }
        check(Date.now() < deadline, `run ${accepted.run_id} still ${status} after ${settings.timeoutMs / 1000} s (progress ${p.fraction})`, current);
        await sleep(Math.min(settings.pollMs * (1 + Math.random() * 0.2), Math.max(0, deadline - Date.now())));
      }
    });

    const observations = await step('read observations', async (detail) => {
      const all: Observation[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
        const page: Reply<List<Observation>> = await api.get<List<Observation>>(`/v1/runs/${run.run_id}/observations${query}`);
        for (const o of page.body.data) {
          const where = `observation ${o.observation_id}`;
          check(
            o.run_id === run.run_id && o.type === 'find_moments' && o.semantics === 'timestamped_moment',
            `${where}: run ${o.run_id}, ${o.type}/${o.semantics}`,
            page,
          );
          const { start_ms, end_ms } = o.evidence;
          check(
            o.evidence.media_kind === 'video' && start_ms >= 0 && start_ms < end_ms && end_ms <= run.source.duration_ms,
            `${where}: evidence ${o.evidence.media_kind} ${start_ms}-${end_ms} ms`,
            page,
          );
          check(o.source_metadata.smoke_test === true, `${where}: source_metadata ${JSON.stringify(o.source_metadata)}`, page);
        }
        all.push(...page.body.data);
        cursor = page.body.next_cursor;
      } while (cursor);
      check(all.length === run.observation_count, `${all.length} observations listed, the run says ${run.observation_count}`);
      const ranges = all.map((o) => `${(o.evidence.start_ms / 1000).toFixed(1)}-${(o.evidence.end_ms / 1000).toFixed(1)} s`);
      detail(`${all.length} observation(s)${ranges.length ? `: ${ranges.join(', ')}` : ''}`);
      return all;
    });

    await step('read moments', async (detail) => {
      const reply = await api.get<MomentList>(`/v1/analyses/${run.analysis_id}/moments`);
      const { body } = reply;
      check(
        body.analysis_id === run.analysis_id && body.count === body.moments.length,
        `moments of ${body.analysis_id}: count ${body.count}, ${body.moments.length} listed`,
        reply,
      );
      check(body.count > 0 || settings.allowNoMoments, `no moments in a video with a scene cut and a loud burst (--allow-no-moments accepts that)`, reply);
      const ids = new Set(body.moments.map((m) => m.id));
      for (const o of observations) {
        const momentId = (o.value as { moment_id?: string } | null)?.moment_id;
        check(momentId !== undefined && ids.has(momentId), `observation ${o.observation_id} names moment ${momentId}, which the analysis does not list`, reply);
      }
      detail(
        `${body.count} moment(s): ${body.moments.map((m) => `${m.event_type} ${(m.start_ms / 1000).toFixed(1)}-${(m.end_ms / 1000).toFixed(1)} s`).join(', ')}`,
      );
    });

    await step('check billing', async (detail) => {
      const settled = await api.get<Run>(`/v1/runs/${run.run_id}`);
      const { billing } = settled.body;
      check(
        billing.state === 'charged' && billing.credits === expectedCredits,
        `run billing ${billing.credits} credit(s) ${billing.state}, expected ${expectedCredits} charged (ceil(${sourceMs} ms / 60 s))`,
        settled,
      );
      const account = await api.get<Account>('/v1/account');
      const spent = accountBefore.wallet.balance_credits - account.body.wallet.balance_credits;
      check(
        spent === expectedCredits,
        `the balance went from ${accountBefore.wallet.balance_credits} to ${account.body.wallet.balance_credits} (${spent}), expected a drop of exactly ${expectedCredits}`,
        account,
      );
      detail(`${expectedCredits} credit(s) charged; balance ${accountBefore.wallet.balance_credits} -> ${account.body.wallet.balance_credits}`);
    });

    await step('clean up', async (detail) => {
      // functions/routes.ts has no DELETE route for scanners, uploads or runs (test/integration/smoke.test.ts
      // keeps this true): an upload goes with its retention, a scanner stays.
      detail(
        `nothing deletable through the API (no DELETE routes for them); kept scanner ${scanner.scanner_id}, upload ${upload.upload_id} ` +
          `(deleted at ${upload.retention_expires_at ?? `the end of its ${accountBefore.retention.days}-day retention`})`,
      );
      return Promise.resolve();
    });
  } catch (error) {
    if (error instanceof StopSmoke) {
      say(`Smoke test FAILED after ${elapsed(Date.now() - started)}`);
      return false;
    }
    throw error;
  }
  say(`Smoke test passed in ${elapsed(Date.now() - started)}`);
  return true;
}

/** Thrown by a failed step, after it printed its FAIL line. */
class StopSmoke extends Error {}

// ---------------------------------------------------------------------------------------------

let settings: Settings;
try {
  settings = readSettings(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  if (error.message) console.error(`smoke: ${error.message}\n`);
  console.error(USAGE);
  process.exit(error.message ? 2 : 0);
}
process.exitCode = (await smoke(settings)) ? 0 : 1;
