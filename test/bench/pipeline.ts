import { readFile, stat } from 'node:fs/promises';
import { longSource } from '../helpers/ground-truth-media.js';
import { benchHost, type BenchHost } from './host.js';
import { bareDecode, timed } from './signals.js';

export interface PipelineBenchResult {
  sourceSeconds: number;
  decodeSeconds: number;
  runSeconds: number;
  ratio: number;
  xRealtime: number;
}

async function call<T>(host: BenchHost, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${host.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${host.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Upload -> complete -> find_moments run -> completed, through the local host's API. */
async function timeRun(host: BenchHost, file: string): Promise<number> {
  const size = (await stat(file)).size;
  const upload = await call<{ upload_id: string; upload_url: string; upload_headers: Record<string, string> }>(host, 'POST', '/v1/uploads', {
    filename: 'bench.mp4',
    content_type: 'video/mp4',
    size_bytes: size,
  });
  const put = await fetch(upload.upload_url, { method: 'PUT', headers: upload.upload_headers, body: await readFile(file) });
  if (!put.ok) throw new Error(`PUT: ${put.status}`);
  await call(host, 'POST', `/v1/uploads/${upload.upload_id}/complete`);
  const scanner = await call<{ scanner_id: string }>(host, 'POST', '/v1/scanners', {
    name: 'bench',
    instructions: 'Find the scene changes and loud bursts',
    type: 'find_moments',
    min_seconds: 5,
    max_seconds: 30,
  });

  const started = performance.now();
  const run = await call<{ run_id: string }>(host, 'POST', `/v1/scanners/${scanner.scanner_id}/runs`, { upload_id: upload.upload_id });
  for (;;) {
    const { status } = await call<{ status: string }>(host, 'GET', `/v1/runs/${run.run_id}`);
    if (status === 'completed') return (performance.now() - started) / 1000;
    if (status === 'failed') throw new Error(`run ${run.run_id} failed`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Issue 4 #11: wall time of a whole scanner run on a generated 10-minute 1280x720 H.264 file,
 * against one bare `ffmpeg -i file -f null -` decode of the same file (goal: ratio <= 1.5).
 */
export async function benchPipeline(options: { minutes?: number } = {}): Promise<PipelineBenchResult> {
  const minutes = options.minutes ?? 10;
  const file = await longSource({ minutes });
  const decode = await timed(() => bareDecode(file));
  const host = await benchHost();
  try {
    const runSeconds = await timeRun(host, file);
    const round = (value: number) => Math.round(value * 100) / 100;
    return {
      sourceSeconds: minutes * 60,
      decodeSeconds: round(decode.wall),
      runSeconds: round(runSeconds),
      ratio: round(runSeconds / decode.wall),
      xRealtime: round((minutes * 60) / runSeconds),
    };
  } finally {
    await host.stop();
  }
}
