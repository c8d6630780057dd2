/**
 * Helpers for the scanner-run integration tests (test/integration/runs*.test.ts): the public
 * shapes of runs, observations and moments as an integrator reads them, an end-to-end upload
 * through the API, run submission and polling, the wallet, and a few generated sources with
 * known content (beyond test/helpers/ground-truth-media.ts).
 */
import { mkdtemp, readFile, rename, stat } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DeleteObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { expect, inject } from 'vitest';
import { readRunningHost } from '../../functions/local/host.js';
import type { Account, ApiResponse, Client, List, MetadataValue, ScannerType } from './api.js';
import { ffmpeg } from './ground-truth-media.js';

// ---------------------------------------------------------------------------------------------
// Public shapes

export type MediaKind = 'video' | 'audio';
export type RunStatus = 'queued' | 'dispatched' | 'processing' | 'completed' | 'failed';

export interface Upload {
  object: 'upload';
  upload_id: string;
  status: 'pending' | 'ready' | 'failed' | 'expired' | 'deleted';
  media_kind: MediaKind;
  content_type: string;
  size_bytes: number;
  upload_method: string | null;
  upload_url: string | null;
  upload_headers: Record<string, string> | null;
  duration_ms: number | null;
  error: { code: string; message: string } | null;
}

export interface Run {
  object: 'run';
  run_id: string;
  status: RunStatus;
  source_kind: string;
  media_kind: MediaKind;
  analysis_id: string;
  scanner_id: string;
  scanner_version: number;
  upload_id: string;
  source: { kind: string; upload_id: string; media_kind: MediaKind; duration_ms: number };
  window: { analysis_start_seconds: number; analysis_end_seconds: number } | null;
  metadata: Record<string, MetadataValue>;
  billing: { credits: number; state: 'reserved' | 'charged' | 'refunded' };
  observation_count: number | null;
  error: { code: string; message: string } | null;
  provenance: { scanner: { scanner_id: string; version: number; definition: Record<string, unknown> } };
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/** GET /v1/analyses/{id}/progress. */
export interface Progress {
  object: 'analysis_progress';
  analysis_id: string;
  run_id: string;
  status: Run['status'];
  queue_position: number | null;
  chunks_total: number | null;
  chunks_done: number;
  fraction: number;
}

export interface Evidence {
  media_kind: MediaKind;
  evidence_kind: 'visual' | 'transcript' | 'audio' | 'audio_and_transcript';
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  transcript_excerpt: string | null;
  speaker: string | null;
  signals: string[];
}

export interface Observation {
  object: 'observation';
  observation_id: string;
  scanner_id: string;
  scanner_version: number;
  run_id: string;
  analysis_id?: string;
  type: ScannerType;
  value_type: 'boolean' | 'string' | 'number' | 'object';
  semantics: string;
  value: unknown;
  title: string;
  summary: string;
  relevance_score: number;
  evidence: Evidence;
  source_metadata: Record<string, MetadataValue>;
  created_at?: string;
}

export interface Moment {
  id: string;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  score: number;
  title: string;
  event_type: string;
  transcript_excerpt: string;
  edit: { mode: string; subclips: { start_ms: number; end_ms: number }[] };
}

export interface MomentList {
  analysis_id: string;
  count: number;
  moments: Moment[];
}

export const runIdPattern = /^run_[0-9a-f]{32}$/;
export const analysisIdPattern = /^ana_[0-9a-f]{32}$/;
export const observationIdPattern = /^obs_[0-9a-f]{32}$/;
export const momentIdPattern = /^mom_[0-9a-f]{32}$/;

/** SPEC "Scanner types and the observation value they fix". */
export const typeTable: Record<ScannerType, { value_type: Observation['value_type']; semantics: string }> = {
  monitor: { value_type: 'boolean', semantics: 'match_found' },
  summarizer: { value_type: 'string', semantics: 'moment_summary' },
  classifier: { value_type: 'string', semantics: 'classification_label' },
  scorer: { value_type: 'number', semantics: 'relevance_score' },
  extractor: { value_type: 'object', semantics: 'extracted_fields' },
  find_moments: { value_type: 'object', semantics: 'timestamped_moment' },
};

// ---------------------------------------------------------------------------------------------
// Uploads

const contentTypes: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
};

export function contentTypeOf(path: string): string {
  const type = contentTypes[/\.[a-z0-9]+$/.exec(path)?.[0] ?? ''];
  if (!type) throw new Error(`no content type for ${path}`);
  return type;
}

/** POST /v1/uploads only: a pending upload with its signed target. */
export async function createPendingUpload(client: Client, path: string, contentType = contentTypeOf(path)): Promise<Upload> {
  const { size } = await stat(path);
  const created = await client.post<Upload>('/v1/uploads', { filename: basename(path), content_type: contentType, size_bytes: size });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** Sends the bytes as an integrator must: upload_method to upload_url with every upload_headers entry. */
export async function putBytes(upload: Upload, path: string): Promise<void> {
  if (!upload.upload_url || !upload.upload_method || !upload.upload_headers) throw new Error('the upload has no single signed target');
  const response = await fetch(upload.upload_url, { method: upload.upload_method, headers: upload.upload_headers, body: await readFile(path) }).catch(
    (error: unknown) => {
      throw new Error(`${upload.upload_method} ${upload.upload_url} failed`, { cause: error });
    },
  );
  await response.arrayBuffer();
  expect(response.status, `PUT ${upload.upload_id}`).toBe(200);
}

/** POST /v1/uploads/{id}/complete, accepting only a 200 `ready` record. */
export async function completeUpload(client: Client, uploadId: string): Promise<Upload> {
  const completed = await client.post<Upload>(`/v1/uploads/${uploadId}/complete`);
  expect(completed.status, completed.text).toBe(200);
  expect(completed.body.status, completed.text).toBe('ready');
  return completed.body;
}

/** The whole upload flow (SPEC Upload flow 1-4): create -> PUT -> complete -> ready. */
export async function uploadFile(client: Client, path: string, contentType = contentTypeOf(path)): Promise<Upload> {
  const upload = await createPendingUpload(client, path, contentType);
  await putBytes(upload, path);
  const ready = await completeUpload(client, upload.upload_id);
  expect(ready.duration_ms).toBeGreaterThan(0);
  return ready;
}

// ---------------------------------------------------------------------------------------------
// Runs

export interface RunBody {
  upload_id: string;
  analysis_start_seconds?: number;
  analysis_end_seconds?: number;
  metadata?: Record<string, MetadataValue>;
}

export const submitRun = (client: Client, scannerId: string, body: RunBody, headers?: Record<string, string>): Promise<ApiResponse<Run>> =>
  client.post<Run>(`/v1/scanners/${scannerId}/runs`, body, headers);

/** Submits a run and fails the test unless it was accepted (202). */
export async function startRun(client: Client, scannerId: string, body: RunBody, headers?: Record<string, string>): Promise<Run> {
  const response = await submitRun(client, scannerId, body, headers);
  expect(response.status, response.text).toBe(202);
  return response.body;
}

export const isTerminal = (status: RunStatus): boolean => status === 'completed' || status === 'failed';

/** Polls GET /v1/runs/{id} until completed or failed (loopback: a short interval is fine). */
export async function waitForRun(client: Client, runId: string, timeoutMs = 80_000): Promise<Run> {
  const deadline = Date.now() + timeoutMs;
  let last: ApiResponse<Run> | undefined;
  for (;;) {
    last = await client.get<Run>(`/v1/runs/${runId}`);
    expect(last.status, last.text).toBe(200);
    if (isTerminal(last.body.status)) return last.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${last.body.status} after ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Polls until completed; a failed run fails the test with its error. */
export async function waitForCompleted(client: Client, runId: string, timeoutMs?: number): Promise<Run> {
  const run = await waitForRun(client, runId, timeoutMs);
  expect(run.status, `run ${runId} ended ${run.status}: ${JSON.stringify(run.error)}`).toBe('completed');
  return run;
}

/** Every observation of a completed run, in the order the API returns them (following next_cursor). */
export async function observationsOf(client: Client, runId: string): Promise<Observation[]> {
  const all: Observation[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
    const page: ApiResponse<List<Observation>> = await client.get<List<Observation>>(`/v1/runs/${runId}/observations${query}`);
    expect(page.status, page.text).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

export async function momentsOf(client: Client, analysisId: string): Promise<MomentList> {
  const response = await client.get<MomentList>(`/v1/analyses/${analysisId}/moments`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** Submit, wait for completion, read the observations. */
export async function runToCompletion(client: Client, scannerId: string, body: RunBody): Promise<{ run: Run; observations: Observation[] }> {
  const accepted = await startRun(client, scannerId, body);
  const run = await waitForCompleted(client, accepted.run_id);
  return { run, observations: await observationsOf(client, run.run_id) };
}

// ---------------------------------------------------------------------------------------------
// Wallet

export async function balanceOf(client: Client): Promise<number> {
  const response = await client.get<Account>('/v1/account');
  expect(response.status, response.text).toBe(200);
  return response.body.wallet.balance_credits;
}

/** SPEC Billing: 1 credit per analysed minute, rounded up. */
export const creditsFor = (ms: number): number => Math.ceil(ms / 60_000);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The local S3 of the shared host

/** Removes an upload's object from the host's bucket, as a lost object would be. */
export async function deleteUploadObject(accountId: string, uploadId: string): Promise<void> {
  const running = await readRunningHost(inject('dataDir'));
  if (!running) throw new Error('the shared local host is not running');
  const s3 = new S3Client({
    endpoint: running.s3_endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const Key = `accounts/${accountId}/uploads/${uploadId}`;
  try {
    // It exists before (so the key is right) ...
    await s3.send(new HeadObjectCommand({ Bucket: running.bucket, Key }));
    await s3.send(new DeleteObjectCommand({ Bucket: running.bucket, Key }));
    // ... and not after.
    await expect(s3.send(new HeadObjectCommand({ Bucket: running.bucket, Key }))).rejects.toThrow();
  } finally {
    s3.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Generated sources (one temp dir per process, removed on exit)

let workDir: Promise<string> | undefined;
const made = new Map<string, Promise<string>>();

/** `name` made once per process by ffmpeg with `args(outputPath)`, in that temp dir. */
export function generated(name: string, args: (path: string) => string[]): Promise<string> {
  let path = made.get(name);
  if (!path) {
    workDir ??= mkdtemp(join(tmpdir(), 'mss-runs-')).then((dir) => {
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      return dir;
    });
    path = workDir.then(async (dir) => {
      const target = join(dir, name);
      const partial = join(dir, `partial-${name}`);
      await ffmpeg(args(partial));
      await rename(partial, target);
      return target;
    });
    made.set(name, path);
  }
  return path;
}

/** 20 s, 640x360 at 25 fps: left half testsrc with testsrc2 over it 5-10 s and 15-20 s (cuts at 5, 10, 15 s), right half solid blue; a tone. A find_moments scanner told to find the scene changes finds at least two moments in it. */
export const twoShotVideo = (): Promise<string> =>
  generated('render-two-shot.mp4', (path) => [
    ...['-f', 'lavfi', '-i', 'testsrc=s=320x360:r=25:d=20'],
    ...['-f', 'lavfi', '-i', 'testsrc2=s=320x360:r=25:d=20'],
    ...['-f', 'lavfi', '-i', 'color=c=0x1030e0:s=320x360:r=25:d=20'],
    ...['-f', 'lavfi', '-i', 'sine=f=440:r=48000:d=20'],
    ...['-filter_complex', "[0][1]overlay=enable='between(mod(t\\,10)\\,5\\,10)'[left];[left][2]hstack=inputs=2[v]"],
    ...['-map', '[v]', '-map', '3', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-t', '20', '-f', 'mp4', path],
  ]);

/** `seconds` of a steady 440 Hz tone, 8 kHz mono PCM WAV (an exact duration): no silence, no bursts. */
export const toneWav = (seconds: number): Promise<string> =>
  generated(`tone-${seconds}s.wav`, (path) => [
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=8000:duration=${seconds}`,
    '-c:a',
    'pcm_s16le',
    '-f',
    'wav',
    path,
  ]);

/**
 * `seconds` (a multiple of 30) of 160x120 video with a hard cut every 10 s (three different test
 * patterns, repeated) and a steady tone; H.264 ultrafast + AAC. Long enough to watch a run before
 * it completes, cheap to decode.
 */
export const longVideo = (seconds: number): Promise<string> =>
  generated(`long-${seconds}s.mp4`, (path) => [
    ...['-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=25:d=10'],
    ...['-f', 'lavfi', '-i', 'testsrc=s=160x120:r=25:d=10'],
    ...['-f', 'lavfi', '-i', 'testsrc2=s=160x120:r=25:d=10,hue=h=120'],
    ...['-f', 'lavfi', '-i', `sine=f=440:r=22050:d=${seconds}`],
    ...['-filter_complex', `[0][1][2]concat=n=3,loop=loop=${seconds / 30 - 1}:size=750:start=0[v]`, '-map', '[v]', '-map', '3'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-t', String(seconds), '-f', 'mp4', path],
  ]);

/** Cut times (ms) of longVideo(seconds). */
export const longVideoCutsMs = (seconds: number): number[] => Array.from({ length: seconds / 10 - 1 }, (_, i) => (i + 1) * 10_000);
