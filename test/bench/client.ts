/**
 * The benchmarks' API calls, as an integrator makes them (no vitest here: figures, never
 * assertions): upload a file, save a find_moments scanner, submit a run and wait for it.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

/** A local host's API and one account's key. */
export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
}

export async function call<T>(target: ApiTarget, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A POST that must not run twice: runs and batches are submitted with an Idempotency-Key, as integrators should. */
export const submit = <T>(target: ApiTarget, path: string, body: unknown): Promise<T> =>
  call<T>(target, 'POST', path, body, { 'idempotency-key': randomUUID() });

/** An uploaded video and a find_moments scanner: what a run needs. */
export interface RunInputs {
  uploadId: string;
  scannerId: string;
}

/** The scanner every bench run analyses with. */
export const benchScanner = {
  name: 'bench',
  instructions: 'Find the scene changes and loud bursts',
  type: 'find_moments',
  min_seconds: 5,
  max_seconds: 30,
} as const;

/** Upload -> PUT -> complete (ready), and a find_moments scanner. */
export async function prepareRun(target: ApiTarget, file: string): Promise<RunInputs> {
  const upload = await call<{ upload_id: string; upload_url: string; upload_headers: Record<string, string> }>(target, 'POST', '/v1/uploads', {
    filename: 'bench.mp4',
    content_type: 'video/mp4',
    size_bytes: (await stat(file)).size,
  });
  const put = await fetch(upload.upload_url, { method: 'PUT', headers: upload.upload_headers, body: await readFile(file) });
  if (!put.ok) throw new Error(`PUT: ${put.status}`);
  await call(target, 'POST', `/v1/uploads/${upload.upload_id}/complete`);
  const scanner = await call<{ scanner_id: string }>(target, 'POST', '/v1/scanners', benchScanner);
  return { uploadId: upload.upload_id, scannerId: scanner.scanner_id };
}

/** Reads until `done` says so; a stuck workflow ends the bench instead of hanging it. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<T> {
  const { intervalMs = 250, timeoutMs = 30 * 60_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface CompletedRun {
  analysisId: string;
  /** From the POST to the first read that saw it completed. */
  seconds: number;
}

/** Submits a run and waits until it is completed (a failed run ends the bench). */
export async function runToCompletion(target: ApiTarget, inputs: RunInputs): Promise<CompletedRun> {
  const { result: run, ms } = await stopwatch(async () => {
    const submitted = await submit<{ run_id: string; analysis_id: string }>(target, `/v1/scanners/${inputs.scannerId}/runs`, { upload_id: inputs.uploadId });
    await pollUntil(
      () => call<{ status: string }>(target, 'GET', `/v1/runs/${submitted.run_id}`),
      ({ status }) => {
        if (status === 'failed') throw new Error(`run ${submitted.run_id} failed`);
        return status === 'completed';
      },
    );
    return submitted;
  });
  return { analysisId: run.analysis_id, seconds: ms / 1000 };
}

/** What `action` returned and how long it took, in ms. */
export async function stopwatch<T>(action: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await action();
  return { result, ms: performance.now() - started };
}

/** Two decimals: figures, not noise. */
export const round = (value: number): number => Math.round(value * 100) / 100;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
