import type { Metadata } from '../metadata.js';
import { announcement, type Announcement } from '../events/model.js';
import type { ScannerDefinition } from '../scanners/model.js';
import type { Span } from '../engine/signals.js';
import type { MediaKind } from '../uploads/model.js';
import type { ObservationDraft } from '../engine/contract.js';
import type { ChatMomentType, MomentBrief } from '../engine/moment-brief.js';
import type { ProviderKind, SourceOrigin } from '../sources/ports.js';

export const runStatuses = ['queued', 'dispatched', 'processing', 'completed', 'failed'] as const;
type RunStatus = (typeof runStatuses)[number];
/** A run in one of these has not ended: it still has work (and a workflow) ahead of it. */
export const unfinishedRunStatuses = ['queued', 'dispatched', 'processing'] as const satisfies readonly RunStatus[];
export const analysisStatuses = ['queued', 'dispatched', 'processing', 'completed', 'failed', 'canceled'] as const;
export type AnalysisStatus = (typeof analysisStatuses)[number];
export const analysisKinds = ['one_off', 'scanner_run'] as const;
export type AnalysisKind = (typeof analysisKinds)[number];
export const billingStates = ['reserved', 'charged', 'refunded'] as const;
type BillingState = (typeof billingStates)[number];
/** A run's concurrency slot: absent while it waits, held once dispatched, released exactly once. */
type SlotState = 'held' | 'released';

export interface TerminalError {
  code: string;
  message: string;
}

/** The batch item a run was spawned for (batches name their items by it; a run only carries it). */
export interface BatchItemRef {
  accountId: string;
  batchId: string;
  index: number;
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
  /** The run's share of the deployment's capacity (DESIGN §6): taken with the slot, released exactly once with it. */
  capacity?: SlotState;
  /** The batch item this run was spawned for, told when the run ends. */
  batchItem?: BatchItemRef;
  /**
   * Set when the work is a one-off analysis (DESIGN 10): it runs through the same pipeline as a
   * scanner run, and this record is then internal: never presented, no observations.
   */
  oneOff?: OneOffWork;
}

export const speechCleanups = ['natural', 'tight'] as const;
export type SpeechCleanup = (typeof speechCleanups)[number];

/** What a one-off analysis needs beyond a find_moments definition. */
interface OneOffWork {
  /** Internal: the caller's URL may carry a signed query. Never presented or logged. */
  sourceUrl: string;
  origin: SourceOrigin;
  brief: MomentBrief;
  speechCleanup: SpeechCleanup;
  /** The proof allowance pays for it (0 credits); a refund gives the allowance back. */
  proof: boolean;
  /** Acquisition stops past this many bytes. */
  maxSourceBytes: number;
  /** The size preflight saw, when the source declared one. */
  knownSizeBytes: number | null;
  /** Days the private copy is kept (the account's retention at submission). */
  retentionDays: number;
}

/** A source as analysis records present it: never a URL (DESIGN 10). */
export type AnalysisSource =
  | { kind: 'upload'; upload_id: string; media_kind: MediaKind; duration_ms: number }
  | {
      kind: 'url';
      provider: { id: string; name: string; kind: ProviderKind } | { kind: 'trusted_host'; host: string };
      host: string;
      media_kind: 'video';
      duration_ms: number;
      size_bytes: number | null;
      title: string | null;
    };

/** The request of a one-off analysis, as its record shows it. */
interface OneOffRequest {
  what_to_find: string | null;
  profile: 'conversation' | 'gameplay';
  chat_moment_types: ChatMomentType[];
  speech_cleanup: SpeechCleanup;
  max_moments: number;
  min_seconds: number;
  max_seconds: number;
}

/** Every run owns an analysis: the record that carries lifecycle, chunk progress and billing. */
export interface AnalysisRecord {
  analysisId: string;
  accountId: string;
  /** The work record (internal for one-off analyses). */
  runId: string;
  kind: AnalysisKind;
  status: AnalysisStatus;
  reservedCredits: number;
  billing: BillingState;
  /** Records written before these fields existed lack them; presenters show null. */
  source?: AnalysisSource;
  window?: Span | null;
  /** One-off analyses only. */
  request?: OneOffRequest;
  proof?: boolean;
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
  /** Null for one-off analyses: their moments come from no run or observation. */
  run_id: string | null;
  observation_id: string | null;
  rank: number;
  start_ms: number;
  end_ms: number;
  duration_ms: number;
  score: number;
  title: string;
  event_type: string;
  transcript_excerpt: string;
  /** `subclips` when speech_cleanup is tight: the parts kept once pauses are cut (DESIGN 10). */
  edit: { mode: 'continuous' | 'subclips'; subclips: { start_ms: number; end_ms: number }[] };
  /**
   * Internal (never presented): the transcript's words spoken inside the moment, in source time,
   * kept with the moment so its renders can caption it for as long as the moment exists (the
   * per-chunk signal artifacts expire after a day). Absent when the analysis had no transcriber
   * (or predates word keeping); empty when nobody spoke.
   */
  words?: MomentWord[];
}

/** One word of a moment's transcript; milliseconds from the start of the source. */
export interface MomentWord {
  text: string;
  start_ms: number;
  end_ms: number;
}

export interface Chunk {
  index: number;
  startMs: number;
  endMs: number;
}

/** The span a run analyses: its window, or the whole source. */
export const analysedRange = (run: RunRecord): Span => run.window ?? { startMs: 0, endMs: run.sourceDurationMs };

/** Fields that accepted work starts with, set once here for runs of every kind. */
type RunLifecycle = 'status' | 'error' | 'observationCount' | 'createdAt' | 'updatedAt' | 'startedAt' | 'completedAt';
type AnalysisLifecycle = 'status' | 'billing' | 'chunksTotal' | 'chunksDone' | 'error' | 'createdAt' | 'updatedAt';

/** Work just accepted: queued, nothing measured or settled yet. */
export const queuedRun = (run: Omit<RunRecord, RunLifecycle>, now: string): RunRecord => ({
  ...run,
  status: 'queued',
  error: null,
  observationCount: null,
  createdAt: now,
  updatedAt: now,
  startedAt: null,
  completedAt: null,
});

/** The analysis of work just accepted: its credits reserved, no chunk planned yet. */
export const queuedAnalysis = (analysis: Omit<AnalysisRecord, AnalysisLifecycle>, now: string): AnalysisRecord => ({
  ...analysis,
  status: 'queued',
  billing: 'reserved',
  chunksTotal: null,
  chunksDone: 0,
  error: null,
  createdAt: now,
  updatedAt: now,
});

/** 1 credit per analyzed minute, rounded up (SPEC Billing). */
export const creditsFor = (billedMs: number): number => Math.max(1, Math.ceil(billedMs / 60_000));

/**
 * The events of ended work (DESIGN 8): run.completed|failed for a scanner run (a one-off
 * analysis's internal run announces nothing), and analysis.completed|failed|canceled.
 */
export function endAnnouncements(run: RunRecord, analysisEnd: 'completed' | 'failed' | 'canceled', at: string): Announcement[] {
  const runEnd = analysisEnd === 'completed' ? 'completed' : 'failed';
  return [
    ...(run.oneOff ? [] : [announcement(`run.${runEnd}`, { kind: 'run', runId: run.runId }, at)]),
    announcement(`analysis.${analysisEnd}`, { kind: 'analysis', analysisId: run.analysisId }, at),
  ];
}
