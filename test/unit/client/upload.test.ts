/** uploadFile: SPEC "Upload flow" with a single PUT or multipart parts, progress, retries of the PUTs. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentTypeFor, createMediaScannerClient } from '../../../packages/client/src/index.js';
import { envelope, fakeClock, fakeFetch, hex, json, type SeenRequest } from './fakes.js';

const uploadId = `upl_${hex(1)}`;
const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
const upload = (overrides: Record<string, unknown>) => ({ object: 'upload', upload_id: uploadId, status: 'pending', size_bytes: bytes.length, ...overrides });
const declared = (request: SeenRequest) => JSON.parse(new TextDecoder().decode(request.body)) as Record<string, unknown>;

describe('uploadFile', () => {
  it('sends the bytes in one PUT with every returned header, reports progress, and completes', async () => {
    const signed = { 'content-type': 'video/mp4', 'x-amz-tagging': 'retention=7' };
    const { fetch, seen } = fakeFetch({
      'POST /v1/uploads': () =>
        json(201, upload({ upload_method: 'PUT', upload_url: 'https://s3.test/put?sig=1', upload_headers: signed, upload_parts: null })),
      'PUT https://s3.test/put?sig=1': () => new Response(null, { status: 200 }),
      [`POST /v1/uploads/${uploadId}/complete`]: () => json(200, upload({ status: 'ready' })),
    });
    const client = createMediaScannerClient({ apiKey: 'sk_test_x', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    const progress: number[] = [];
    const done = await client.uploadFile(
      { data: bytes, filename: 'clip.mp4' },
      { onProgress: ({ sentBytes, totalBytes }) => progress.push(sentBytes / totalBytes) },
    );

    expect(done).toMatchObject({ upload_id: uploadId, status: 'ready' });
    expect(declared(seen[0]!)).toEqual({ filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 1000 });
    const put = seen[1]!;
    expect(put.method).toBe('PUT');
    expect(Object.fromEntries(put.headers)).toMatchObject({ ...signed, 'content-length': '1000' });
    // The signed target carries its own signature: never the API key.
    expect(put.headers.get('authorization')).toBeNull();
    expect(put.body).toEqual(bytes);
    expect(progress.at(-1)).toBe(1);
    expect(seen.map((request) => request.method)).toEqual(['POST', 'PUT', 'POST']);
  });

  it('sends each multipart part its own byte range, retrying a failed part with fresh bytes', async () => {
    const parts = [
      { part_number: 1, upload_url: 'https://s3.test/part1', size_bytes: 400 },
      { part_number: 2, upload_url: 'https://s3.test/part2', size_bytes: 400 },
      { part_number: 3, upload_url: 'https://s3.test/part3', size_bytes: 200 },
    ];
    const { fetch, seen } = fakeFetch({
      'POST /v1/uploads': () => json(201, upload({ upload_method: null, upload_url: null, upload_headers: {}, upload_parts: parts })),
      'PUT https://s3.test/part1': () => new Response(null, { status: 200 }),
      'PUT https://s3.test/part2': (_request, count) => new Response(null, { status: count === 1 ? 500 : 200 }),
      'PUT https://s3.test/part3': () => new Response(null, { status: 200 }),
      [`POST /v1/uploads/${uploadId}/complete`]: () => json(200, upload({ status: 'ready' })),
    });
    const clock = fakeClock();
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock });
    let last = { sentBytes: 0, totalBytes: 0 };
    let max = 0;
    await client.uploadFile(
      { data: bytes, filename: 'long.mkv' },
      { concurrency: 2, onProgress: (progress) => ((last = progress), (max = Math.max(max, progress.sentBytes))) },
    );

    const puts = seen.filter((request) => request.method === 'PUT');
    expect(puts.map((request) => request.url).sort()).toEqual([
      'https://s3.test/part1',
      'https://s3.test/part2',
      'https://s3.test/part2',
      'https://s3.test/part3',
    ]);
    expect(puts.find((request) => request.url.endsWith('part1'))?.body).toEqual(bytes.subarray(0, 400));
    expect(puts.filter((request) => request.url.endsWith('part2')).map((request) => request.body)).toEqual([
      bytes.subarray(400, 800),
      bytes.subarray(400, 800),
    ]);
    expect(puts.find((request) => request.url.endsWith('part3'))?.body).toEqual(bytes.subarray(800));
    expect(puts.every((request) => request.headers.get('content-type') === null)).toBe(true);
    expect(declared(seen[0]!)).toMatchObject({ content_type: 'video/x-matroska' });
    // The failed attempt's bytes were taken back: progress ends at the total and never passes it.
    expect(last).toEqual({ sentBytes: 1000, totalBytes: 1000 });
    expect(max).toBe(1000);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('reads a file from disk and names the upload after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-upload-'));
    const path = join(dir, 'talk.m4a');
    writeFileSync(path, bytes);
    const { fetch, seen } = fakeFetch({
      'POST /v1/uploads': () => json(201, upload({ upload_method: 'PUT', upload_url: 'https://s3.test/put', upload_headers: {}, upload_parts: null })),
      'PUT https://s3.test/put': () => new Response(null, { status: 200 }),
      [`POST /v1/uploads/${uploadId}/complete`]: () => json(200, upload({ status: 'failed', error: { code: 'no_audio_stream', message: 'No audio.' } })),
    });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    // A failed upload is an answer (the bytes were not accepted media), not an exception.
    await expect(client.uploadFile({ path })).resolves.toMatchObject({ status: 'failed', error: { code: 'no_audio_stream' } });
    expect(declared(seen[0]!)).toEqual({ filename: 'talk.m4a', content_type: 'audio/mp4', size_bytes: 1000 });
    expect(seen[1]?.body).toEqual(bytes);
  });

  it('stops at the API error of the declaration', async () => {
    const { fetch } = fakeFetch({ 'POST /v1/uploads': () => envelope(400, 'validation_failed') });
    const client = createMediaScannerClient({ apiKey: 'k', baseUrl: 'http://api.test', fetch, clock: fakeClock() });
    await expect(client.uploadFile({ data: bytes, filename: 'a.wav' })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('contentTypeFor', () => {
  it('knows the SPEC content types by extension, and refuses to guess the others', () => {
    expect(['a.MP4', 'b.mov', 'c.webm', 'd.mp3', 'e.flac', 'f.opus'].map(contentTypeFor)).toEqual([
      'video/mp4',
      'video/quicktime',
      'video/webm',
      'audio/mpeg',
      'audio/flac',
      'audio/opus',
    ]);
    expect(() => contentTypeFor('notes.txt')).toThrow(/content type/);
  });
});
