import type { Metadata } from '../../schemas/common.js';
import type { ScannerDefinition } from '../../schemas/scanner.js';
import type { Span } from '../analysis/signals.js';
import type { MediaKind } from '../analysis/observation-types.js';
import type { ObservationDraft } from '../analysis/contract.js';
import type { BatchItemRef } from '../batches/model.js';

export type RunStatus = 'queued' | 'dispatched' | 'processing' | 'completed' | 'failed';
export type AnalysisStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'canceled';
export type BillingState = 'reserved' | 'charged' | 'refunded';
/** A run's concurrency slot: absent while it waits, held once dispatched, released exactly once. */
export type SlotState = 'held' | 'released';

export interface TerminalError {
  code: string;
  message: string;
}

export interface RunRecord {
  runId: string;
  accountId: string;
  analysisId: string;
  scannerId: string;
  scannerVersion: number;
  /** The definition snapshot the run pinned at submission. */
  scanner: ScannerDefinition;
  uploadId: string;
  /** Internal: where the source bytes are; never in a response. */
  objectKey: string;
  mediaKind: MediaKind;
  sourceDurationMs: number;
  window: Span | null;
  metadata: Metadata;
  status: RunStatus;
  credits: number;
  error: TerminalError | null;
  observationCount: number | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** Internal scheduling state; never in a response. */
  slot?: SlotState;
  /** The batch item this run was spawned for, told when the run ends. */
  batchItem?: BatchItemRef;
}

/** Every run owns an analysis: the record that carries lifecycle, chunk progress and billing. */
export interface AnalysisRecord {
  analysisId: string;
  accountId: string;
  runId: string;
  kind: 'scanner_run';
  status: AnalysisStatus;
  reservedCredits: number;
  billing: BillingState;
  chunksTotal: number | null;
  chunksDone: number;
  error: TerminalError | null;
  createdAt: string;
  updatedAt: string;
}

/** A stored observation: the contract's draft plus its identity, provenance and source metadata. */
export interface ObservationRecord extends ObservationDraft {
  object: 'observation';
  observation_id: string;
  scanner_id: string;
  scanner_version: number;
  run_id: string;
  analysis_id: string;
  source_metadata: Metadata;
  created_at: string;
}

export interface MomentRecord {
  object: 'moment';
  id: string;
  analysis_id: string;
  run_id: string;
  observation_id: string;
  rank: number;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  score: number;
  title: string;
  event_type: string;
  transcript_excerpt: string;
  edit: { mode: 'continuous'; subclips: { start_ms: number; end_ms: number }[] };
}

export interface Chunk {
  index: number;
  startMs: number;
  endMs: number;
}

/** 1 credit per analyzed minute, rounded up (SPEC Billing). */
export const creditsFor = (billedMs: number): number => Math.max(1, Math.ceil(billedMs / 60_000));
