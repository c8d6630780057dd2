/**
 * Uploads through the local host's HTTP API (SPEC Upload flow, DESIGN §3-4, docs/uploads.md):
 * create -> PUT the bytes with exactly the returned headers -> complete -> ready, for every SPEC
 * content type with a real file; every bad input fails closed with its own code, never a 5xx.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetObjectTaggingCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { uploadEntity } from '../../functions/adapters/table/entities/upload.js';
import { localDocumentClient, readRunningHost } from '../../functions/local/host.js';
import { uploadContentTypes, type UploadContentType } from '../../functions/domain/uploads/model.js';
import { eventLogOnce, type EventLogLine } from '../helpers/events.js';
import {
  clientFor,
  createAccount,
  expectClientError,
  expectError,
  isoMillisPattern,
  listAll,
  type ApiResponse,
  type Client,
  type List,
} from '../helpers/api.js';
import { acceptedSpecials, allFixtures, fixture, fixtureForContentType, rejectedInputs, type FixtureName } from '../helpers/media-fixtures.js';

interface Stream {
  index: number;
  type: 'audio' | 'video';
  codec: string;
  width: number | null;
  height: number | null;
  frame_rate: number | null;
  channels: number | null;
  sample_rate: number | null;
  attached_picture: boolean;
}

interface Upload {
  object: 'upload';
  upload_id: string;
  status: 'pending' | 'ready' | 'failed' | 'expired' | 'deleted';
  media_kind: 'video' | 'audio';
  filename: string;
  content_type: string;
  size_bytes: number;
  upload_method: 'PUT' | null;
  upload_url: string | null;
  upload_headers: Record<string, string> | null;
  upload_parts: { part_number: number; upload_url: string; size_bytes: number }[] | null;
  expires_at: string;
  duration_ms: number | null;
  streams: Stream[] | null;
  error: { code: string; message: string } | null;
  retention_expires_at: string | null;
  ready_at: string | null;
  failed_at: string | null;
  created_at: string;
  updated_at: string;
}

const publicFields = [
  'object',
  'upload_id',
  'status',
  'media_kind',
  'filename',
  'content_type',
  'size_bytes',
  'upload_method',
  'upload_url',
  'upload_headers',
  'upload_parts',
  'expires_at',
  'duration_ms',
  'streams',
  'error',
  'retention_expires_at',
  'ready_at',
  'failed_at',
  'created_at',
  'updated_at',
];

let client: Client;
let accountId: string;
let s3: S3Client;
let bucket: string;
let dynamoEndpoint: string;
let tableName: string;

beforeAll(async () => {
  const [account] = await Promise.all([createAccount({ plan: 'creator' }), allFixtures()]);
  client = clientFor(account.apiKey);
  accountId = account.accountId;
  const running = await readRunningHost(inject('dataDir'));
  if (!running) throw new Error('the shared local host is not running');
  s3 = new S3Client({
    endpoint: running.s3_endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  bucket = running.bucket;
  dynamoEndpoint = running.dynamodb_endpoint;
  tableName = running.table;
});

async function create(body: Record<string, unknown>, as: Client = client): Promise<Upload> {
  const response = await as.post<Upload>('/v1/uploads', body);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Sends the bytes exactly as an integrator must: upload_method, upload_url, every upload_headers entry. */
async function putBytes(upload: Upload, bytes: Buffer): Promise<number> {
  if (!upload.upload_url || !upload.upload_method || !upload.upload_headers) throw new Error('no single upload target');
  const response = await fetch(upload.upload_url, { method: upload.upload_method, headers: upload.upload_headers, body: bytes });
  await response.arrayBuffer();
  return response.status;
}

async function complete(uploadId: string, as: Client = client): Promise<ApiResponse<Upload>> {
  const response = await as.post<Upload>(`/v1/uploads/${uploadId}/complete`);
  // Whatever the media, completion never answers a 5xx.
  expect(response.status, response.text).toBeLessThan(500);
  return response;
}

/** The whole flow for one file; returns the completed record (status 200 asserted). */
async function uploadFile(name: FixtureName, contentType: UploadContentType, declaredSize?: number): Promise<Upload> {
  const bytes = await readFile(await fixture(name));
  const upload = await create({ filename: name, content_type: contentType, size_bytes: declaredSize ?? bytes.length });
  expect(await putBytes(upload, bytes)).toBe(200);
  const completed = await complete(upload.upload_id);
  expect(completed.status, completed.text).toBe(200);
  return completed.body;
}

/** The event log once every upload named has its terminal event in it. */
const eventsOf = (...uploadIds: string[]): Promise<EventLogLine[]> =>
  eventLogOnce(inject('dataDir'), (lines) => uploadIds.every((id) => lines.some((line) => (line.event.data.object as Upload).upload_id === id)));

/** Moves a stored record's clock fields, as time passing would (DynamoDB Local of the shared host). */
async function setStored(uploadId: string, field: 'expiresAt' | 'retentionExpiresAt', value: string): Promise<void> {
  const doc = localDocumentClient(dynamoEndpoint);
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: uploadEntity.key({ accountId, uploadId }),
      UpdateExpression: 'SET #f = :v',
      ExpressionAttributeNames: { '#f': field },
      ExpressionAttributeValues: { ':v': value },
    }),
  );
  doc.destroy();
}

describe('POST /v1/uploads', () => {
  it('answers 201 with a pending record and a signed PUT target that signs every returned header', async () => {
    const before = Date.now();
    const upload = await create({ filename: 'My talk (final).mp3', content_type: 'audio/mpeg', size_bytes: 1234 });
    expect(Object.keys(upload).sort()).toEqual([...publicFields].sort());
    expect(upload).toMatchObject({
      object: 'upload',
      status: 'pending',
      media_kind: 'audio',
      filename: 'My talk (final).mp3',
      content_type: 'audio/mpeg',
      size_bytes: 1234,
      upload_method: 'PUT',
      upload_headers: { 'content-type': 'audio/mpeg', 'x-amz-tagging': 'retention-days=90' },
      upload_parts: null,
      duration_ms: null,
      streams: null,
      error: null,
      retention_expires_at: null,
    });
    expect(upload.upload_id).toMatch(/^upl_[0-9a-f]{32}$/);
    for (const at of [upload.created_at, upload.updated_at, upload.expires_at]) expect(at).toMatch(isoMillisPattern);
    const ttl = Date.parse(upload.expires_at) - Date.parse(upload.created_at);
    expect(ttl).toBe(15 * 60_000);
    expect(Date.parse(upload.created_at)).toBeGreaterThanOrEqual(before - 1000);

    // The object key is account-scoped and never derived from the filename.
    const url = new URL(upload.upload_url ?? '');
    expect(decodeURIComponent(url.pathname)).toBe(`/${bucket}/accounts/${accountId}/uploads/${upload.upload_id}`);
    // s3rver does not verify SigV4, so what is real here is what S3 would enforce: both headers are
    // signed, so a PUT without them or with another content-type is refused by S3.
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host;x-amz-tagging');
    expect(url.searchParams.get('X-Amz-Expires')).toMatch(/^(899|900)$/);
  });

  it('ignores Idempotency-Key (SPEC): two creates are two uploads', async () => {
    const body = { filename: 'a.wav', content_type: 'audio/wav', size_bytes: 10 };
    const first = await client.post<Upload>('/v1/uploads', body, { 'idempotency-key': 'same-key' });
    const second = await client.post<Upload>('/v1/uploads', body, { 'idempotency-key': 'same-key' });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.upload_id).not.toBe(second.body.upload_id);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    [{ content_type: 'video/avi' }, 'content_type'],
    [{ content_type: 'Audio/MPEG' }, 'content_type'],
    [{ content_type: 'audio/mpeg; codecs=mp3' }, 'content_type'],
    [{ size_bytes: 0 }, 'size_bytes'],
    [{ size_bytes: 1.5 }, 'size_bytes'],
    [{ size_bytes: '100' }, 'size_bytes'],
    [{ filename: '' }, 'filename'],
    [{ filename: '../etc/passwd' }, 'filename'],
    [{ filename: 'a\\b.mp3' }, 'filename'],
    [{ filename: 'line\nbreak.mp3' }, 'filename'],
    [{ filename: 'x'.repeat(256) }, 'filename'],
    [{ extra: true }, 'extra'],
  ])('refuses %j with 400 validation_failed naming the field', async (change, param) => {
    const response = await client.post('/v1/uploads', { filename: 'a.mp3', content_type: 'audio/mpeg', size_bytes: 100, ...change });
    expectError(response, 400, 'validation_failed', param);
  });

  it('refuses sizes over the account limit for the media kind (video 8 GiB, audio 2 GiB)', async () => {
    const GiB = 1024 ** 3;
    expectError(
      await client.post('/v1/uploads', { filename: 'v.mp4', content_type: 'video/mp4', size_bytes: 8 * GiB + 1 }),
      400,
      'validation_failed',
      'size_bytes',
    );
    expectError(
      await client.post('/v1/uploads', { filename: 'a.wav', content_type: 'audio/wav', size_bytes: 2 * GiB + 1 }),
      400,
      'validation_failed',
      'size_bytes',
    );
    // At the limit, and over the 5 GiB single-PUT limit, it is a multipart upload.
    const big = await create({ filename: 'v.mp4', content_type: 'video/mp4', size_bytes: 8 * GiB });
    expect(big).toMatchObject({ upload_method: null, upload_url: null, upload_headers: {} });
    expect(big.upload_parts).toHaveLength(16);
    expect(big.upload_parts?.every((p) => p.size_bytes === 512 * 1024 ** 2)).toBe(true);
    expect(Date.parse(big.expires_at) - Date.parse(big.created_at)).toBe(6 * 3600_000);
  });

  it('answers a missing or malformed body in the envelope', async () => {
    expectClientError(await client.send('POST', '/v1/uploads'));
    expectError(await client.send('POST', '/v1/uploads', { raw: '{"filename":' }), 400, 'validation_failed', 'body');
  });
});

describe('every SPEC content type completes ready from a real file', () => {
  it('maps all 17 SPEC types to a fixture', () => {
    expect(Object.keys(fixtureForContentType).sort()).toEqual([...uploadContentTypes].sort());
  });

  it.each(uploadContentTypes.map((type) => [type, fixtureForContentType[type]] as const))('%s (%s)', async (contentType, name) => {
    const upload = await uploadFile(name, contentType);
    const kind = contentType.startsWith('video/') ? 'video' : 'audio';
    expect(upload).toMatchObject({ status: 'ready', media_kind: kind, error: null, upload_url: null, upload_headers: null, failed_at: null });
    // The fixtures are 3 s long (AAC in ADTS has no length field: its duration is estimated).
    expect(upload.duration_ms).toBeGreaterThanOrEqual(2900);
    expect(upload.duration_ms).toBeLessThanOrEqual(3300);
    expect(upload.ready_at).toMatch(isoMillisPattern);
    const types = upload.streams?.map((s) => s.type) ?? [];
    expect(types).toContain('audio');
    if (kind === 'video') {
      expect(upload.streams?.find((s) => s.type === 'video')).toMatchObject({ width: 160, height: 120, frame_rate: 15, attached_picture: false });
    } else {
      expect(types).toEqual(['audio']);
      expect(upload.streams?.[0]).toMatchObject({ channels: 1, sample_rate: expect.any(Number) as number, width: null });
    }
    // GET returns the same record.
    const read = await client.get<Upload>(`/v1/uploads/${upload.upload_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(upload);
  });

  it.each(acceptedSpecials.map((s) => [s.why, s] as const))('accepts: %s', async (_why, special) => {
    const upload = await uploadFile(special.fixture, special.contentType);
    expect(upload.status).toBe('ready');
    if (special.fixture.startsWith('cover-art')) {
      expect(upload.streams).toEqual([
        expect.objectContaining({ type: 'audio', attached_picture: false }),
        expect.objectContaining({ type: 'video', codec: 'png', attached_picture: true, frame_rate: null }),
      ]);
    }
  });
});

describe('bad media fails closed, each with its own code', () => {
  it.each(rejectedInputs.map((r) => [`${r.fixture} as ${r.contentType}`, r] as const))('%s', async (_name, input) => {
    const upload = await uploadFile(input.fixture, input.contentType);
    expect(upload).toMatchObject({ status: 'failed', error: { code: input.code }, duration_ms: null, streams: null, ready_at: null });
    expect(upload.error?.message.length).toBeGreaterThan(10);
    expect(upload.failed_at).toMatch(isoMillisPattern);
  });

  it('a stored size other than the declared one fails size_mismatch, and the bytes are deleted', async () => {
    const bytes = await readFile(await fixture('audio.mp3'));
    const upload = await uploadFile('audio.mp3', 'audio/mpeg', bytes.length + 1);
    expect(upload).toMatchObject({ status: 'failed', error: { code: 'size_mismatch' } });
    await expect(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `accounts/${accountId}/uploads/${upload.upload_id}` }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
  });
});

describe('POST /v1/uploads/{upload_id}/complete', () => {
  it('before the bytes: 409 upload_object_missing, still pending; after the PUT it completes', async () => {
    const bytes = await readFile(await fixture('audio.flac'));
    const upload = await create({ filename: 'late.flac', content_type: 'audio/flac', size_bytes: bytes.length });
    const early = await complete(upload.upload_id);
    const error = expectError(early, 409, 'upload_object_missing');
    expect(error.message).toMatch(/safe to retry/);
    expect((await client.get<Upload>(`/v1/uploads/${upload.upload_id}`)).body.status).toBe('pending');

    expect(await putBytes(upload, bytes)).toBe(200);
    const done = await complete(upload.upload_id);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('ready');
  });

  it('a second complete returns the same record without probing again; concurrent completes agree', async () => {
    const bytes = await readFile(await fixture('audio.ogg'));
    const upload = await create({ filename: 'twice.ogg', content_type: 'audio/ogg', size_bytes: bytes.length });
    expect(await putBytes(upload, bytes)).toBe(200);
    const results = await Promise.all([complete(upload.upload_id), complete(upload.upload_id), complete(upload.upload_id)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const [first] = results;
    for (const result of results) expect(result.body).toEqual(first?.body);
    const again = await complete(upload.upload_id);
    expect(again.body).toEqual(first?.body);
    // One transition, so one event.
    expect((await eventsOf(upload.upload_id)).filter((line) => (line.event.data.object as Upload).upload_id === upload.upload_id)).toHaveLength(1);
  });

  it('404s an unknown, malformed or foreign upload (indistinguishably)', async () => {
    const mine = await create({ filename: 'mine.mp3', content_type: 'audio/mpeg', size_bytes: 10 });
    const other = clientFor((await createAccount({ plan: 'hobby' })).apiKey);
    for (const response of [
      await other.post(`/v1/uploads/${mine.upload_id}/complete`),
      await other.get(`/v1/uploads/${mine.upload_id}`),
      await client.post(`/v1/uploads/upl_${'0'.repeat(32)}/complete`),
      await client.get('/v1/uploads/not-an-id'),
    ]) {
      expectError(response, 404, 'not_found');
    }
    expect((await other.get<List<Upload>>('/v1/uploads')).body.data).toEqual([]);
  });

  it('tags a ready object with its retention class, and the record carries the retention deadline', async () => {
    const upload = await uploadFile('audio.wav', 'audio/wav');
    const key = `accounts/${accountId}/uploads/${upload.upload_id}`;
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key }));
    expect(tags.TagSet).toEqual([{ Key: 'retention-days', Value: '90' }]);
    // Creator plan: 90 days from the object's creation (S3 lifecycle counts from there too).
    const days = (Date.parse(upload.retention_expires_at ?? '') - Date.parse(upload.created_at)) / 86_400_000;
    expect(days).toBeGreaterThan(89.99);
    expect(days).toBeLessThan(90.01);
  });

  it('an expired upload without bytes answers 409 saying so; one whose bytes arrived in time still completes', async () => {
    const lost = await create({ filename: 'lost.mp3', content_type: 'audio/mpeg', size_bytes: 10 });
    await setStored(lost.upload_id, 'expiresAt', new Date(Date.now() - 1000).toISOString());
    expect((await client.get<Upload>(`/v1/uploads/${lost.upload_id}`)).body.status).toBe('expired');
    const error = expectError(await complete(lost.upload_id), 409, 'upload_object_missing');
    expect(error.message).toMatch(/expired at .*create a new upload/);

    const bytes = await readFile(await fixture('audio.opus'));
    const late = await create({ filename: 'late.opus', content_type: 'audio/opus', size_bytes: bytes.length });
    expect(await putBytes(late, bytes)).toBe(200);
    await setStored(late.upload_id, 'expiresAt', new Date(Date.now() - 1000).toISOString());
    expect((await complete(late.upload_id)).body.status).toBe('ready');
  });

  it('a ready upload past its retention reads deleted; complete returns it as is', async () => {
    const upload = await uploadFile('audio.aiff', 'audio/aiff');
    await setStored(upload.upload_id, 'retentionExpiresAt', new Date(Date.now() - 1000).toISOString());
    expect((await client.get<Upload>(`/v1/uploads/${upload.upload_id}`)).body.status).toBe('deleted');
    expect((await complete(upload.upload_id)).body.status).toBe('deleted');
  });
});

describe('GET /v1/uploads', () => {
  it('lists newest first, without signed targets, filters by status and pages with signed cursors', async () => {
    const lister = clientFor((await createAccount({ plan: 'beginner' })).apiKey);
    const made: string[] = [];
    const wav = await readFile(await fixture('audio.wav'));
    for (let i = 0; i < 5; i++) {
      const upload = await create({ filename: `n${i}.wav`, content_type: 'audio/wav', size_bytes: i === 4 ? wav.length + 1 : wav.length }, lister);
      made.push(upload.upload_id);
      if (i % 2 === 0) {
        expect(await putBytes(upload, wav)).toBe(200);
        expect((await complete(upload.upload_id, lister)).status).toBe(200);
      }
    }
    // n0, n2: ready; n4: failed (size); n1, n3: pending.
    const all = await listAll<Upload>(lister, '/v1/uploads', 2);
    expect(all.items.map((u) => u.upload_id)).toEqual([...made].reverse());
    expect(all.pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    for (const item of all.items) expect(item).toMatchObject({ upload_url: null, upload_headers: null, upload_parts: null });
    expect(all.items.find((u) => u.upload_id === made[0])?.retention_expires_at).not.toBeNull();

    const byStatus = async (status: string) => (await listAll<Upload>(lister, `/v1/uploads?status=${status}`, 1)).items.map((u) => u.upload_id);
    expect(await byStatus('ready')).toEqual([made[2], made[0]]);
    expect(await byStatus('pending')).toEqual([made[3], made[1]]);
    expect(await byStatus('failed')).toEqual([made[4]]);
    expect(await byStatus('expired')).toEqual([]);
    expect(await byStatus('deleted')).toEqual([]);

    expectError(await lister.get('/v1/uploads?status=done'), 400, 'validation_failed', 'status');
    expectError(await lister.get('/v1/uploads?limit=0'), 400, 'validation_failed', 'limit');
    const first = await lister.get<List<Upload>>('/v1/uploads?limit=2');
    const cursor = first.body.next_cursor ?? '';
    expectError(await lister.get(`/v1/uploads?limit=2&cursor=${encodeURIComponent(`${cursor}x`)}`), 400, 'invalid_cursor', 'cursor');
    // A cursor is bound to its account.
    expectError(await client.get(`/v1/uploads?limit=2&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor', 'cursor');
  });
});

describe('events', () => {
  it('appends upload.ready and upload.failed to events.ndjson with the record as GET returns it', async () => {
    const ready = await uploadFile('audio.m4a', 'audio/x-m4a');
    const failed = await uploadFile('random.bin', 'audio/mpeg');
    const log = await eventsOf(ready.upload_id, failed.upload_id);
    for (const [upload, type] of [
      [ready, 'upload.ready'],
      [failed, 'upload.failed'],
    ] as const) {
      const line = log.find((l) => (l.event.data.object as Upload).upload_id === upload.upload_id);
      expect(line).toMatchObject({ account_id: accountId, event: { type, created_at: upload.updated_at } });
      expect(line?.event.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(line?.event.data.object).toEqual((await client.get<Upload>(`/v1/uploads/${upload.upload_id}`)).body);
      expect(Object.keys(line?.event ?? {}).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    }
  });
});
