/**
 * The multipart path end to end. A real multipart upload starts above 5 GiB, which a test cannot
 * send, so this file runs a local host of its own (the shared one's environment is fixed) with
 * MULTIPART_THRESHOLD_BYTES and MULTIPART_PART_SIZE_BYTES lowered to S3's 5 MiB minimum, and
 * sends a 7 MB file in parts through the signed UploadPart URLs. Completion lists the parts
 * server-side (ListParts), so the client never sends ETags.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, expectError, type Client } from '../helpers/api.js';
import { startHost, type HostProcess } from '../helpers/host-process.js';
import { fixture } from '../helpers/media-fixtures.js';

const MiB = 1024 ** 2;

interface Upload {
  upload_id: string;
  status: string;
  upload_method: string | null;
  upload_url: string | null;
  upload_headers: Record<string, string> | null;
  upload_parts: { part_number: number; upload_url: string; size_bytes: number }[] | null;
  duration_ms: number | null;
  error: { code: string; message: string } | null;
}

let host: HostProcess;
let dataDir: string;
let client: Client;
let wav: Buffer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mss-multipart-'));
  // The child host reads these through the one config reader, as a deployment would.
  vi.stubEnv('MULTIPART_THRESHOLD_BYTES', String(5 * MiB));
  vi.stubEnv('MULTIPART_PART_SIZE_BYTES', String(5 * MiB));
  [host, wav] = await Promise.all([startHost({ dataDir }), fixture('multipart.wav').then((path) => readFile(path))]);
  vi.unstubAllEnvs();
  client = api(host.baseUrl, host.apiKey);
  expect(wav.length).toBeGreaterThan(5 * MiB);
});

afterAll(async () => {
  if (host) {
    host.child.kill('SIGINT');
    await host.exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function createMultipart(size = wav.length): Promise<Upload> {
  const response = await client.post<Upload>('/v1/uploads', { filename: 'long.wav', content_type: 'audio/wav', size_bytes: size });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function putPart(upload: Upload, partNumber: number, bytes: Buffer): Promise<number> {
  const part = upload.upload_parts?.find((p) => p.part_number === partNumber);
  if (!part) throw new Error(`no part ${partNumber}`);
  const response = await fetch(part.upload_url, { method: 'PUT', body: bytes });
  await response.arrayBuffer();
  return response.status;
}

const slice = (upload: Upload, partNumber: number): Buffer => {
  const start = (partNumber - 1) * 5 * MiB;
  const part = upload.upload_parts?.find((p) => p.part_number === partNumber);
  return wav.subarray(start, start + (part?.size_bytes ?? 0));
};

describe('multipart uploads', () => {
  it('signs one PUT per part instead of a single target', async () => {
    const upload = await createMultipart();
    expect(upload).toMatchObject({ status: 'pending', upload_method: null, upload_url: null, upload_headers: {} });
    expect(upload.upload_parts?.map((p) => p.part_number)).toEqual([1, 2]);
    expect(upload.upload_parts?.[0]?.size_bytes).toBe(5 * MiB);
    expect(upload.upload_parts?.reduce((sum, p) => sum + p.size_bytes, 0)).toBe(wav.length);
    // Small uploads on the same host still get one PUT.
    const small = await client.post<Upload>('/v1/uploads', { filename: 's.wav', content_type: 'audio/wav', size_bytes: 5 * MiB });
    expect(small.body.upload_method).toBe('PUT');
  });

  it('completes from parts sent in any order, naming missing parts until all are there', async () => {
    const upload = await createMultipart();
    expect(await putPart(upload, 2, slice(upload, 2))).toBe(200);
    const early = expectError(await client.post(`/v1/uploads/${upload.upload_id}/complete`), 409, 'upload_object_missing');
    expect(early.message).toContain('1 of 2 parts have not been uploaded (part 1)');

    expect(await putPart(upload, 1, slice(upload, 1))).toBe(200);
    const done = await client.post<Upload>(`/v1/uploads/${upload.upload_id}/complete`);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'ready', error: null });
    expect(done.body.duration_ms).toBe(40_000);
    // A retried complete (the multipart upload is gone by now) returns the same record.
    const again = await client.post<Upload>(`/v1/uploads/${upload.upload_id}/complete`);
    expect(again.body).toEqual(done.body);
  });

  it('fails size_mismatch when a part is not the size it was signed for', async () => {
    const upload = await createMultipart();
    expect(await putPart(upload, 1, slice(upload, 1).subarray(1))).toBe(200);
    expect(await putPart(upload, 2, slice(upload, 2))).toBe(200);
    const done = await client.post<Upload>(`/v1/uploads/${upload.upload_id}/complete`);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'failed', error: { code: 'size_mismatch' } });
    expect(done.body.error?.message).toContain('Part 1');
  });
});
