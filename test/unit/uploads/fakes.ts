/** In-memory ports for the upload domain's unit tests. */
import type {
  Inspection,
  MediaInspector,
  MediaStore,
  PartPlan,
  StoredObject,
  UploadDeps,
  UploadedPart,
  UploadStore,
} from '../../../functions/domain/uploads/ports.js';
import type { UploadRecord } from '../../../functions/domain/uploads/model.js';
import type { Announcement } from '../../../functions/domain/events/model.js';

export class MemoryUploads implements UploadStore {
  readonly records = new Map<string, { upload: UploadRecord; ttl: number }>();
  /** Set to make the next finish() lose the race to this record (as a concurrent completion would). */
  raceWinner: UploadRecord | undefined;

  private key = (accountId: string, uploadId: string) => `${accountId}/${uploadId}`;

  create(accountId: string, upload: UploadRecord, ttl: number): Promise<void> {
    this.records.set(this.key(accountId, upload.uploadId), { upload: structuredClone(upload), ttl });
    return Promise.resolve();
  }

  get(accountId: string, uploadId: string): Promise<UploadRecord | undefined> {
    const found = this.records.get(this.key(accountId, uploadId));
    return Promise.resolve(found ? structuredClone(found.upload) : undefined);
  }

  /** What each transition that took effect put into the outbox. */
  readonly announced: Announcement[] = [];

  finish(accountId: string, next: UploadRecord, ttl: number, announcements: readonly Announcement[]): Promise<boolean> {
    const key = this.key(accountId, next.uploadId);
    if (this.raceWinner) {
      this.records.set(key, { upload: this.raceWinner, ttl });
      this.raceWinner = undefined;
    }
    const current = this.records.get(key);
    if (current?.upload.status !== 'pending') return Promise.resolve(false);
    this.records.set(key, { upload: structuredClone(next), ttl });
    this.announced.push(...announcements);
    return Promise.resolve(true);
  }

  list(): never {
    throw new Error('not used');
  }
}

export class MemoryMedia implements MediaStore {
  readonly objects = new Map<string, { size: number; lastModified: Date; tags?: Record<string, string> }>();
  readonly multiparts = new Map<string, { key: string; parts: UploadedPart[]; tags: Record<string, string> }>();
  readonly calls: string[] = [];
  readonly removed: string[] = [];

  signPut(key: string, contentType: string, tags: Record<string, string>, expiresAt: Date) {
    this.calls.push(`signPut ${key}`);
    const tagging = new URLSearchParams(tags).toString();
    return Promise.resolve({
      method: 'PUT' as const,
      url: `https://bucket.example/${key}?expires=${expiresAt.toISOString()}`,
      headers: { 'content-type': contentType, 'x-amz-tagging': tagging },
    });
  }

  createMultipart(key: string, _contentType: string, tags: Record<string, string>) {
    const id = `mp-${this.multiparts.size + 1}`;
    this.multiparts.set(id, { key, parts: [], tags });
    return Promise.resolve(id);
  }

  signParts(key: string, multipartId: string, parts: PartPlan[]) {
    return Promise.resolve(parts.map((part) => ({ ...part, url: `https://bucket.example/${key}?uploadId=${multipartId}&partNumber=${part.partNumber}` })));
  }

  /** What a client PUT to a part URL does. */
  putPart(multipartId: string, partNumber: number, sizeBytes: number): void {
    const upload = this.multiparts.get(multipartId);
    if (!upload) throw new Error('no such multipart upload');
    upload.parts = upload.parts.filter((p) => p.partNumber !== partNumber);
    upload.parts.push({ partNumber, sizeBytes, etag: `"etag-${partNumber}"` });
  }

  listParts(_key: string, multipartId: string) {
    this.calls.push('listParts');
    const upload = this.multiparts.get(multipartId);
    return Promise.resolve(upload ? [...upload.parts] : undefined);
  }

  completeMultipart(key: string, multipartId: string, parts: UploadedPart[]) {
    this.calls.push(`completeMultipart ${parts.map((p) => p.partNumber).join(',')}`);
    if (!this.multiparts.delete(multipartId)) return Promise.resolve(false);
    this.objects.set(key, { size: parts.reduce((sum, p) => sum + p.sizeBytes, 0), lastModified: new Date('2026-03-01T10:00:00.000Z') });
    return Promise.resolve(true);
  }

  abortMultipart(_key: string, multipartId: string) {
    this.calls.push('abortMultipart');
    this.multiparts.delete(multipartId);
    return Promise.resolve();
  }

  head(key: string): Promise<StoredObject | undefined> {
    this.calls.push('head');
    const object = this.objects.get(key);
    return Promise.resolve(object ? { sizeBytes: object.size, lastModified: object.lastModified } : undefined);
  }

  signGet(key: string) {
    return Promise.resolve(`https://bucket.example/${key}?signed-get`);
  }

  tag(key: string, tags: Record<string, string>) {
    this.calls.push(`tag ${new URLSearchParams(tags).toString()}`);
    const object = this.objects.get(key);
    if (object) object.tags = tags;
    return Promise.resolve();
  }

  remove(key: string) {
    this.removed.push(key);
    this.objects.delete(key);
    return Promise.resolve();
  }
}

export class ScriptedInspector implements MediaInspector {
  verdict: Inspection = {
    ok: true,
    durationMs: 3000,
    streams: [{ index: 0, type: 'audio', codec: 'mp3', width: null, height: null, frame_rate: null, channels: 2, sample_rate: 44100, attached_picture: false }],
  };
  readonly urls: string[] = [];

  inspect(url: string) {
    this.urls.push(url);
    return Promise.resolve(this.verdict);
  }
}

export function fakeDeps(overrides: Partial<UploadDeps> = {}) {
  const uploads = new MemoryUploads();
  const media = new MemoryMedia();
  const inspector = new ScriptedInspector();
  const warnings: string[] = [];
  const deps: UploadDeps = {
    uploads,
    media,
    inspector,
    multipartThresholdBytes: 5 * 1024 ** 3,
    partSizeBytes: 512 * 1024 ** 2,
    warn: (message) => warnings.push(message),
    ...overrides,
  };
  return { deps, uploads, media, inspector, warnings };
}
