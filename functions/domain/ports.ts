/**
 * Ports: what the domain needs from storage. Adapters (functions/adapters) implement them with
 * AWS SDK clients handed in by the caller; tests implement them with DynamoDB Local or mocks.
 */
import type { PlanName, PlanLimits } from './accounts/plans.js';
import type { Announcement } from './events/outbox.js';
import type { ScannerDefinition } from '../schemas/scanner.js';
import type { MediaKind, UploadContentType } from '../schemas/upload.js';

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Account {
  accountId: string;
  plan: PlanName;
  creditsBalance: number;
  /** Contracted overrides of the plan's limits (enterprise). */
  limitOverrides: Partial<PlanLimits>;
  /** Per-account cap on observations per run, below the deployment cap. */
  maxObservations: number | null;
  trustedHosts: string[];
  /** Concurrency slots held by the account's runs (DESIGN §6). */
  concurrencyInUse: number;
  /** The one-off analysis that claimed the account's proof allowance (SPEC Limits); absent while it is available. */
  proofAnalysisId?: string;
  /** An operator switched event delivery off for this account (admin CLI); absent: on (SPEC Events). */
  eventDeliveryDisabled?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  keyHash: string;
  accountId: string;
  revoked: boolean;
  createdAt: string;
}

export interface LedgerEntry {
  entryId: string;
  credits: number;
  reason: string;
  createdAt: string;
}

export interface AccountStore {
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  getAccount(accountId: string): Promise<Account | undefined>;
  /** Writes the account, its first key and the opening ledger entry atomically. */
  createAccount(account: Account, key: ApiKeyRecord, opening: LedgerEntry): Promise<void>;
  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** false when no such key exists. */
  revokeApiKey(keyHash: string): Promise<boolean>;
  /** Balance change and ledger entry in one transaction; returns the new balance. */
  addCredits(accountId: string, entry: LedgerEntry): Promise<number>;
  addTrustedHost(accountId: string, hostname: string): Promise<string[]>;
  /** Switches event delivery on or off for the account; false when there is no such account. */
  setEventDelivery(accountId: string, enabled: boolean): Promise<boolean>;
  /** Sets these contracted limits, keeping the account's other overrides; false when there is no such account. */
  setLimitOverrides(accountId: string, overrides: Partial<PlanLimits>): Promise<boolean>;
}

export interface ScannerRecord extends ScannerDefinition {
  scannerId: string;
  version: number;
  /** When the scanner (version 1) was created. */
  createdAt: string;
  /** When this version was created. */
  updatedAt: string;
}

export interface ScannerStore {
  /** Writes the head and the version-1 snapshot atomically. */
  create(accountId: string, scanner: ScannerRecord): Promise<void>;
  get(accountId: string, scannerId: string): Promise<ScannerRecord | undefined>;
  getVersion(accountId: string, scannerId: string, version: number): Promise<ScannerRecord | undefined>;
  /**
   * Writes snapshot `next.version` and moves the head, only if the head is still at
   * `next.version - 1`; returns false when another update won the race.
   */
  putNextVersion(accountId: string, next: ScannerRecord): Promise<boolean>;
  list(accountId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
  listVersions(accountId: string, scannerId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
}

// ---- Uploads -------------------------------------------------------------------------------

/** The states an upload is stored in; `expired` and `deleted` are derived on read (domain/uploads/uploads.ts). */
export type StoredUploadStatus = 'pending' | 'ready' | 'failed';

/** Why an upload failed; every code fails closed and is documented in docs/uploads.md. */
export type UploadFailureCode =
  | 'size_mismatch'
  | 'unreadable_media'
  | 'truncated_media'
  | 'undecodable_media'
  | 'no_audio_stream'
  | 'no_video_stream'
  | 'unexpected_video_stream'
  | 'duration_exceeds_limit'
  | 'inspection_timeout';

export interface UploadFailure {
  code: UploadFailureCode;
  message: string;
}

/** One audio or video stream as the probe found it (stored and presented as is). */
export interface StreamSummary {
  index: number;
  type: MediaKind;
  codec: string;
  width: number | null;
  height: number | null;
  frame_rate: number | null;
  channels: number | null;
  sample_rate: number | null;
  attached_picture: boolean;
}

/** The S3 multipart upload behind an upload over the multipart threshold. */
export interface MultipartState {
  /** S3's UploadId: internal, never presented. */
  id: string;
  partSizeBytes: number;
  partCount: number;
}

export interface UploadRecord {
  uploadId: string;
  status: StoredUploadStatus;
  mediaKind: MediaKind;
  filename: string;
  contentType: UploadContentType;
  sizeBytes: number;
  /** Account-scoped media object key; never derived from the filename. */
  objectKey: string;
  multipart: MultipartState | null;
  /** Deadline of the signed upload target(s). */
  expiresAt: string;
  /** The account's retention when the upload was created. */
  retentionDays: number;
  /** Ready uploads: object creation + retentionDays; reads past it show `deleted`. */
  retentionExpiresAt: string | null;
  durationMs: number | null;
  streams: StreamSummary[] | null;
  error: UploadFailure | null;
  readyAt: string | null;
  failedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

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

export type Inspection =
  | { ok: true; durationMs: number; streams: StreamSummary[] }
  | { ok: false; error: UploadFailure };

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

// ---- Events --------------------------------------------------------------------------------

/** DESIGN §8 event types. */
export type EventType =
  | 'analysis.completed'
  | 'analysis.failed'
  | 'analysis.canceled'
  | 'run.completed'
  | 'run.failed'
  | 'render.completed'
  | 'render.failed'
  | 'upload.ready'
  | 'upload.failed'
  | 'scanner_batch.completed'
  /** Sent on request to one endpoint (POST /v1/webhook-endpoints/{id}/test), through the normal path. */
  | 'webhook.test';

/** DESIGN §8 payload: `data.object` is the record exactly as its GET returns it. */
export interface ServiceEvent {
  id: string;
  type: EventType;
  created_at: string;
  data: { object: unknown };
}

/** Terminal events leave the service through here (EventBridge on AWS, an in-process bus locally). */
export interface EventPublisher {
  publish(accountId: string, event: ServiceEvent): Promise<void>;
}
