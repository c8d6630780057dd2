import { builtInProviders } from '../../domain/providers.js';
import { PROOF_MAX_WINDOW_MS } from '../../domain/analyses/limits.js';
import { effectiveMaxObservations, limitsOf } from '../../domain/accounts.js';
import { uploadStatusAt, type UploadTargets } from '../../domain/uploads.js';
import { eventDeliveryEnabled } from '../../domain/webhooks/availability.js';
import type { Account, Page, ScannerRecord, UploadRecord } from '../../domain/ports.js';
import type { AccountResource, List, ScannerResource, UploadResource } from '../components.js';

/**
 * Public shapes: fields are allowlisted here, so nothing internal leaks into a response. Each is
 * typed by its response schema (functions/schemas/responses.ts): the OpenAPI document cannot drift.
 */
export const presentScanner = (scanner: ScannerRecord): ScannerResource => ({
  object: 'scanner' as const,
  scanner_id: scanner.scannerId,
  version: scanner.version,
  name: scanner.name,
  instructions: scanner.instructions,
  type: scanner.type,
  profile: scanner.profile ?? null,
  max_observations: scanner.max_observations ?? null,
  min_seconds: scanner.min_seconds ?? null,
  max_seconds: scanner.max_seconds ?? null,
  output: scanner.output ?? null,
  metadata: scanner.metadata ?? {},
  created_at: scanner.createdAt,
  updated_at: scanner.updatedAt,
});

export const presentList = <T, R>(page: Page<T>, present: (item: T) => R): List<R> => ({
  object: 'list' as const,
  data: page.items.map(present),
  next_cursor: page.nextCursor,
});

/** `waitingRuns`: the account's runs queued for a concurrency slot; `deploymentEventDelivery`: EVENT_DELIVERY_ENABLED. */
export function presentAccount(account: Account, deploymentMaxObservations: number, waitingRuns: number, deploymentEventDelivery: boolean): AccountResource {
  const limits = limitsOf(account);
  return {
    object: 'account' as const,
    account_id: account.accountId,
    plan: account.plan,
    wallet: { balance_credits: account.creditsBalance, credit_unit_seconds: 60 },
    limits: {
      max_video_bytes: limits.maxVideoBytes,
      max_audio_bytes: limits.maxAudioBytes,
      max_source_minutes: limits.maxSourceMinutes,
      max_observations: effectiveMaxObservations(account, deploymentMaxObservations),
    },
    retention: { days: limits.retentionDays },
    concurrency: { limit: limits.concurrency, in_use: account.concurrencyInUse, queued: waitingRuns },
    // SPEC Limits: one proof analysis (window <= 7,200 s) per paid account.
    proof_allowance: { analysis_available: !account.proofAnalysisId, max_window_seconds: PROOF_MAX_WINDOW_MS / 1000 },
    built_in_providers: builtInProviders.map((p) => ({ id: p.id, name: p.name, kind: p.kind })),
    trusted_hosts: account.trustedHosts,
    event_delivery: { available: eventDeliveryEnabled(deploymentEventDelivery, account) },
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

/**
 * An upload as GET returns it. The signed targets (upload_method, upload_url, upload_headers,
 * upload_parts) are secrets handed out once, by POST /v1/uploads; everywhere else they are null.
 * Over the multipart threshold there is no single target: upload_parts lists one PUT per part.
 */
export function presentUpload(upload: UploadRecord, now: Date, targets?: UploadTargets): UploadResource {
  const single = targets?.kind === 'single' ? targets.target : undefined;
  const parts = targets?.kind === 'multipart' ? targets.parts : undefined;
  return {
    object: 'upload' as const,
    upload_id: upload.uploadId,
    status: uploadStatusAt(upload, now),
    media_kind: upload.mediaKind,
    filename: upload.filename,
    content_type: upload.contentType,
    size_bytes: upload.sizeBytes,
    upload_method: single?.method ?? null,
    upload_url: single?.url ?? null,
    upload_headers: single ? { ...single.headers } : parts ? {} : null,
    upload_parts: parts?.map((part) => ({ part_number: part.partNumber, upload_url: part.url, size_bytes: part.sizeBytes })) ?? null,
    expires_at: upload.expiresAt,
    duration_ms: upload.durationMs,
    streams:
      upload.streams?.map((s) => ({
        index: s.index,
        type: s.type,
        codec: s.codec,
        width: s.width,
        height: s.height,
        frame_rate: s.frame_rate,
        channels: s.channels,
        sample_rate: s.sample_rate,
        attached_picture: s.attached_picture,
      })) ?? null,
    error: upload.error ? { code: upload.error.code, message: upload.error.message } : null,
    retention_expires_at: upload.retentionExpiresAt,
    ready_at: upload.readyAt,
    failed_at: upload.failedAt,
    created_at: upload.createdAt,
    updated_at: upload.updatedAt,
  };
}
