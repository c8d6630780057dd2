/** What uploads need from storage, the media bucket and the probe (implemented in functions/adapters). */
import type { Page, PageRequest } from '../pages.js';
import type { Announcement } from '../events/model.js';
import type { MediaKind, UploadFailure, UploadRecord, StreamSummary } from './model.js';

export interface UploadStore {
  /** Writes a new pending upload; `expireAtEpochSeconds` becomes the record's table TTL. */
  create(accountId: string, upload: UploadRecord, expireAtEpochSeconds: number): Promise<void>;
  get(accountId: string, uploadId: string): Promise<UploadRecord | undefined>;
  /**
   * The pending -> ready|failed transition with its event into the outbox: one transaction,
   * applied only while the stored upload is still pending. false when another completion got there first.
   */
  finish(accountId: string, next: UploadRecord, expireAtEpochSeconds: number, announcements: readonly Announcement[]): Promise<boolean>;
  /** Newest first; `keep` filters (derived statuses depend on the clock, so filtering is in code). */
  list(accountId: string, page: PageRequest, keep?: (upload: UploadRecord) => boolean): Promise<Page<UploadRecord>>;
}

/** A signed single-request upload target. */
export interface SignedTarget {
  method: 'PUT';
  url: string;
  /** Every header the client must send with the bytes (they are part of the signature). */
  headers: Record<string, string>;
}

export interface PartPlan {
  partNumber: number;
  sizeBytes: number;
}

export interface SignedPart extends PartPlan {
  url: string;
}

export interface UploadedPart extends PartPlan {
  etag: string;
}

export interface StoredObject {
  sizeBytes: number;
  lastModified: Date;
}

/** The media bucket, as uploads need it. Keys are built by the domain; tags are S3 object tags. */
export interface MediaStore {
  signPut(key: string, contentType: string, tags: Record<string, string>, expiresAt: Date): Promise<SignedTarget>;
  /** Starts a multipart upload (tags apply to the completed object) and returns its id. */
  createMultipart(key: string, contentType: string, tags: Record<string, string>): Promise<string>;
  signParts(key: string, multipartId: string, parts: PartPlan[], expiresAt: Date): Promise<SignedPart[]>;
  /** The parts received so far; undefined when the multipart upload no longer exists (completed or aborted). */
  listParts(key: string, multipartId: string): Promise<UploadedPart[] | undefined>;
  /** false when the multipart upload no longer exists (e.g. a concurrent completion finished it). */
  completeMultipart(key: string, multipartId: string, parts: UploadedPart[]): Promise<boolean>;
  abortMultipart(key: string, multipartId: string): Promise<void>;
  head(key: string): Promise<StoredObject | undefined>;
  signGet(key: string, expiresInSeconds: number): Promise<string>;
  tag(key: string, tags: Record<string, string>): Promise<void>;
  remove(key: string): Promise<void>;
}

export type Inspection = { ok: true; durationMs: number; streams: StreamSummary[] } | { ok: false; error: UploadFailure };

/**
 * Probes the real stream layout of stored media through a signed URL (no full download).
 * A verdict about the media is a value; a failure to run the probe at all is thrown.
 */
export interface MediaInspector {
  /**
   * `prefixOnly`: the bytes are the media's beginning only (a source measured from its first bytes):
   * its layout and first frames are checked, its end is not (acquisition checks the whole).
   */
  inspect(url: string, mediaKind: MediaKind, limits: { maxDurationMs: number; prefixOnly?: boolean }): Promise<Inspection>;
}

/** What the upload use cases are given. */
export interface UploadDeps {
  uploads: UploadStore;
  media: MediaStore;
  inspector: MediaInspector;
  /** Uploads above this many bytes get multipart part targets instead of one PUT. */
  multipartThresholdBytes: number;
  partSizeBytes: number;
  /** Where problems that must not fail the request (cleanup) are reported. */
  warn: (message: string, error: unknown) => void;
}
