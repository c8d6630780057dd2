/**
 * A malformed-media corpus, generated at test time from the project's ffmpeg fixtures
 * (test/helpers/media-fixtures.ts) and byte surgery on them: zero bytes, random bytes, MP4 cut
 * with and without its index (moov), an MP4 that is all index and no samples, header-only MP3 and
 * WAV, video declared as audio and the reverse, a PNG named .mp4, a subtitle-only Matroska file,
 * a playlist, sizes that differ from the declared one. Each goes through the whole upload flow
 * (declare, PUT to the signed target, complete) and must fail closed: `failed` with an error, never
 * `ready`; nothing charged; a run or a batch item naming it refused 400 `upload_not_ready`.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectError, type Client } from '../helpers/api.js';
import { postBatch } from '../helpers/batches.js';
import { ledgerOf, ledgerProblems } from '../helpers/ledger.js';
import { fixture, type FixtureName } from '../helpers/media-fixtures.js';
import { balanceOf, generated, submitRun, type Upload } from '../helpers/runs.js';
import { newTenant, Resources } from './resources.js';

interface Specimen {
  name: string;
  filename: string;
  content_type: string;
  bytes: () => Promise<Buffer>;
  /** The size declared at creation; the real size when absent. */
  declare?: (actual: number) => number;
}

const bytesOf = (name: FixtureName) => async () => readFile(await fixture(name));

/** The top-level boxes of an MP4 up to and including `moov`: its whole index, not one sample. */
function mp4HeaderOnly(file: Buffer): Buffer {
  let offset = 0;
  while (offset + 8 <= file.length) {
    const size = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    if (size < 8) break;
    offset += size;
    if (type === 'moov') return file.subarray(0, offset);
  }
  throw new Error('no moov box before the samples: the fixture must be a faststart MP4');
}

/** An MP3's ID3v2 tag and one frame header, without the frame (or any other). */
function mp3HeaderOnly(file: Buffer): Buffer {
  if (file.toString('latin1', 0, 3) !== 'ID3') return file.subarray(0, 4);
  const tagSize = ((file[6] ?? 0) << 21) | ((file[7] ?? 0) << 14) | ((file[8] ?? 0) << 7) | (file[9] ?? 0);
  return file.subarray(0, 10 + tagSize + 4);
}

const srt = Buffer.from('1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 00:00:04,000\nWorld\n').toString('base64');

const corpus: Specimen[] = [
  { name: 'zero bytes, declared as one', filename: 'empty.mp4', content_type: 'video/mp4', bytes: () => Promise.resolve(Buffer.alloc(0)), declare: () => 1 },
  { name: 'random bytes as MP4', filename: 'noise.mp4', content_type: 'video/mp4', bytes: () => Promise.resolve(randomBytes(64 * 1024)) },
  { name: 'random bytes as MP3', filename: 'noise.mp3', content_type: 'audio/mpeg', bytes: bytesOf('random.bin') },
  {
    name: 'random bytes behind an MP4 ftyp box',
    filename: 'fake.mp4',
    content_type: 'video/mp4',
    bytes: async () => Buffer.concat([(await readFile(await fixture('video.mp4'))).subarray(0, 32), randomBytes(32 * 1024)]),
  },
  { name: 'MP4 cut, its index (moov) first', filename: 'cut.mp4', content_type: 'video/mp4', bytes: bytesOf('truncated-faststart.mp4') },
  { name: 'MP4 cut, its index (moov) never reached', filename: 'cut-no-moov.mp4', content_type: 'video/mp4', bytes: bytesOf('truncated-moov-missing.mp4') },
  {
    name: 'MP4 index (ftyp + moov) without any sample',
    filename: 'index-only.mp4',
    content_type: 'video/mp4',
    bytes: async () => mp4HeaderOnly(await readFile(await fixture('video.mp4'))),
  },
  {
    name: 'MP3 headers only (ID3 and one frame header)',
    filename: 'header.mp3',
    content_type: 'audio/mpeg',
    bytes: async () => mp3HeaderOnly(await readFile(await fixture('audio.mp3'))),
  },
  { name: 'MP3 cut in half', filename: 'cut.mp3', content_type: 'audio/mpeg', bytes: bytesOf('truncated.mp3') },
  {
    name: 'WAV header only (declares 3 s, holds none)',
    filename: 'header.wav',
    content_type: 'audio/wav',
    bytes: async () => (await readFile(await fixture('audio.wav'))).subarray(0, 44),
  },
  { name: 'Matroska cut in half', filename: 'cut.mkv', content_type: 'video/x-matroska', bytes: bytesOf('truncated.mkv') },
  { name: 'video declared as audio (MP4)', filename: 'video.m4a', content_type: 'audio/mp4', bytes: bytesOf('video.mp4') },
  { name: 'video declared as audio (WebM)', filename: 'video.weba', content_type: 'audio/webm', bytes: bytesOf('video.webm') },
  { name: 'audio declared as video (MP3 as MP4)', filename: 'audio.mp4', content_type: 'video/mp4', bytes: bytesOf('audio.mp3') },
  { name: 'audio declared as video (WAV as Matroska)', filename: 'audio.mkv', content_type: 'video/x-matroska', bytes: bytesOf('audio.wav') },
  { name: 'PNG renamed .mp4', filename: 'picture.mp4', content_type: 'video/mp4', bytes: bytesOf('cover.png') },
  { name: 'cover art only, declared audio', filename: 'cover.m4a', content_type: 'audio/mp4', bytes: bytesOf('cover-only.m4a') },
  {
    name: 'subtitle-only Matroska',
    filename: 'subtitles.mkv',
    content_type: 'video/x-matroska',
    bytes: async () =>
      readFile(await generated('subtitles-only.mkv', (path) => ['-f', 'srt', '-i', `data:text/plain;base64,${srt}`, '-c:s', 'srt', '-f', 'matroska', path])),
  },
  { name: 'HLS playlist pointing at loopback, as MP4', filename: 'playlist.mp4', content_type: 'video/mp4', bytes: bytesOf('playlist.m3u8') },
  {
    name: 'valid MP4, declared 1000 bytes larger',
    filename: 'larger.mp4',
    content_type: 'video/mp4',
    bytes: bytesOf('video.mp4'),
    declare: (actual) => actual + 1000,
  },
  {
    name: 'valid MP4, declared 1000 bytes smaller',
    filename: 'smaller.mp4',
    content_type: 'video/mp4',
    bytes: bytesOf('video.mp4'),
    declare: (actual) => actual - 1000,
  },
  {
    name: 'valid WAV, declared one byte smaller',
    filename: 'smaller.wav',
    content_type: 'audio/wav',
    bytes: bytesOf('audio.wav'),
    declare: (actual) => actual - 1,
  },
];

let resources: Resources;
let client: Client;
let opening: number;

beforeAll(async () => {
  resources = new Resources(await newTenant(50));
  client = resources.tenant.client;
  // A scanner to run over the failed uploads (and the upload it is made with is not among them).
  await resources.id('scanner_id');
  opening = await balanceOf(client);
});
/** What each specimen failed with, printed at the end (the codes are the service's to choose). */
const failures = new Map<string, string>();
afterAll(async () => {
  console.log(`Malformed media:\n${[...failures].map(([name, code]) => `  ${name}: ${code}`).join('\n')}`);
  await resources?.close();
});

/** PUT exactly these bytes to the signed target, with every header it lists. */
async function put(upload: Upload, bytes: Buffer): Promise<number> {
  if (!upload.upload_url || !upload.upload_method || !upload.upload_headers) throw new Error(`upload ${upload.upload_id} has no single signed target`);
  const response = await fetch(upload.upload_url, { method: upload.upload_method, headers: upload.upload_headers, body: bytes });
  await response.arrayBuffer();
  return response.status;
}

describe('every malformed file fails closed', () => {
  test.for(corpus.map((specimen) => [specimen.name, specimen] as const))('%s', async ([, specimen]) => {
    const bytes = await specimen.bytes();
    const declared = specimen.declare ? specimen.declare(bytes.length) : bytes.length;
    const created = await client.post<Upload>('/v1/uploads', { filename: specimen.filename, content_type: specimen.content_type, size_bytes: declared });
    expect(created.status, created.text).toBe(201);
    expect(await put(created.body, bytes), "the store takes the bytes; the check is the service's").toBe(200);

    const completed = await client.post<Upload>(`/v1/uploads/${created.body.upload_id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.status, `${specimen.name}: ${completed.text}`).toBe('failed');
    expect(completed.body.error?.code, completed.text).toMatch(/^[a-z_]+$/);
    failures.set(specimen.name, completed.body.error?.code ?? '');
    // It stays failed: read again, and completed again (completion is idempotent).
    const read = await client.get<Upload>(`/v1/uploads/${created.body.upload_id}`);
    expect(read.body.status).toBe('failed');
    const again = await client.post<Upload>(`/v1/uploads/${created.body.upload_id}/complete`);
    expect(again.body).toEqual(completed.body);

    // Runs cannot use it, alone or in a batch.
    const scannerId = await resources.id('scanner_id');
    expectError(await submitRun(client, scannerId, { upload_id: created.body.upload_id }), 400, 'upload_not_ready');
    expectError(await postBatch(client, [{ client_id: 'malformed', scanner_id: scannerId, upload_id: created.body.upload_id }]), 400, 'upload_not_ready');
  });

  test('an upload of zero declared bytes is refused at once', async () => {
    expectError(await client.post('/v1/uploads', { filename: 'empty.mp4', content_type: 'video/mp4', size_bytes: 0 }), 400, 'validation_failed', 'size_bytes');
  });

  test('nothing was charged: the wallet and its ledger are as they were', async () => {
    expect(await balanceOf(client)).toBe(opening);
    const ledger = await ledgerOf(inject('dataDir'), resources.tenant.accountId);
    expect(
      ledger.map((entry) => entry.reason),
      'only the opening entry',
    ).toEqual(['account_opened']);
    expect(ledgerProblems(ledger, opening)).toEqual([]);
  });
});
