import type { Page, PageRequest } from '../pages.js';
import type { LedgerEntry } from '../accounts/model.js';
import type { MediaKind } from '../uploads/model.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord, TerminalError } from './model.js';
import type { Announcement } from '../events/model.js';

/**
 * Told when a run has ended (completed or failed) and its slot is released: batches settle the
 * item the run was spawned for through it, so runs know nothing of batches.
 */
export type RunEndedListener = (run: RunRecord) => Promise<void>;

/** Identifies one analysis execution; it is the whole input of the workflow. */
export interface AnalysisRef {
  accountId: string;
  runId: string;
  analysisId: string;
}

/** A ready upload a run may analyse; the lookup throws upload_not_found / upload_not_ready. */
export interface RunnableSource {
  uploadId: string;
  mediaKind: MediaKind;
  durationMs: number;
  objectKey: string;
}
/** `param` names the field the upload id came from in errors (e.g. `items[3].upload_id`). */
export type RunnableSourceLookup = (accountId: string, uploadId: string, param?: string) => Promise<RunnableSource>;

/** `item_not_waiting`: the batch item the run was for is no longer queued, or its batch is canceling. */
/** `proof_allowance_exhausted`: a proof analysis while the account's one proof analysis is taken. */
/** `already_created`: the run (or its analysis) exists, i.e. an earlier attempt under the same claimed ids made it. */
export type ReservationOutcome = 'created' | 'already_created' | 'insufficient_credits' | 'proof_allowance_exhausted' | 'item_not_waiting';

/** What acquisition measured of the private copy of a one-off source. */
interface AcquiredSource {
  durationMs: number;
  sizeBytes: number;
}

interface AnalysisFilter {
  /** Only analyses with ids at or after this one (time-ordered ids: created at or after). */
  fromId?: string | undefined;
  keep?: ((analysis: AnalysisRecord) => boolean) | undefined;
}

export interface RunStore {
  /**
   * Run, analysis, wallet debit and ledger entry in one transaction; never below zero. A proof
   * one-off analysis claims the account's proof allowance instead of debiting (conditional update).
   */
  createWithReservation(run: RunRecord, analysis: AnalysisRecord, entry: LedgerEntry): Promise<ReservationOutcome>;
  getRun(accountId: string, runId: string): Promise<RunRecord | undefined>;
  getAnalysis(accountId: string, analysisId: string): Promise<AnalysisRecord | undefined>;
  /** queued|dispatched -> processing; false when the run is no longer startable. */
  markProcessing(ref: AnalysisRef, now: string): Promise<boolean>;
  recordChunkPlan(ref: AnalysisRef, chunksTotal: number, now: string): Promise<void>;
  recordChunkDone(ref: AnalysisRef, now: string): Promise<void>;
  /** Writes observations and moments at rank-keyed items, so a retried write replaces, never duplicates. */
  putResults(ref: AnalysisRef, observations: ObservationRecord[], moments: MomentRecord[]): Promise<void>;
  /** processing -> completed, the reservation becomes the charge, and its events go into the outbox; false when not processing. */
  complete(ref: AnalysisRef, observationCount: number, now: string, announcements: readonly Announcement[]): Promise<boolean>;
  /** -> failed with exactly one refund (conditioned on the reservation still being held). */
  failAndRefund(run: RunRecord, error: TerminalError, refund: LedgerEntry, now: string, announcements: readonly Announcement[]): Promise<boolean>;
  /**
   * Cancels work that has not started: the analysis becomes canceled (the run failed with `error`),
   * the reservation is refunded once and the queue entry removed, in one transaction conditioned
   * on the run still waiting without a slot. false when it started, ended or was granted meanwhile.
   */
  cancelQueued(run: RunRecord, error: TerminalError, refund: LedgerEntry, now: string, announcements: readonly Announcement[]): Promise<boolean>;
  /** The one-off source is in the media bucket: its measured duration and size. */
  recordAcquiredSource(ref: AnalysisRef, source: AcquiredSource, now: string): Promise<void>;
  /** The account's analyses of both kinds, newest first. */
  listAnalyses(accountId: string, filter: AnalysisFilter, page: PageRequest): Promise<Page<AnalysisRecord>>;
  listRunObservations(accountId: string, runId: string, page: PageRequest): Promise<Page<ObservationRecord>>;
  /** Observations across the account, newest first, from `fromId` on, keeping what `keep` accepts. */
  listAccountObservations(
    accountId: string,
    filter: { fromId?: string | undefined; keep?: ((o: ObservationRecord) => boolean) | undefined },
    page: PageRequest,
  ): Promise<Page<ObservationRecord>>;
  listMoments(accountId: string, analysisId: string): Promise<MomentRecord[]>;
}

/** A run waiting for a concurrency slot of its account, with the token of the workflow waiting on it. */
export interface SlotQueueEntry {
  runId: string;
  analysisId: string;
  /** Absent until the run's workflow reaches AcquireSlot. */
  taskToken: string | null;
}

/** `capacity_full`: the deployment admits no more runs at once (DESIGN §6). */
export type GrantOutcome = 'granted' | 'account_full' | 'capacity_full' | 'entry_changed' | 'run_not_waiting';

/** What a grant must stay under: the account's slots and the runs the deployment admits at once. */
export interface GrantLimits {
  account: number;
  capacity: number;
}

export interface SlotUse {
  inUse: number;
  lastGrantedAt: string | null;
}

/** An account with runs waiting for deployment capacity; `mark` changes each time it is marked again. */
export interface CapacityWaiter {
  accountId: string;
  mark: number;
}

/**
 * Per-account concurrency slots and the deployment's capacity (DESIGN §6). A run's queue entry is
 * written with the run itself, so queue order is submission order; the account item counts the
 * slots in use, one deployment item the runs admitted.
 */
export interface SlotStore {
  /** Puts the task token on the run's queue entry; false when the run is not waiting (it holds a slot, or is over). */
  awaitSlot(ref: AnalysisRef, taskToken: string): Promise<boolean>;
  oldestWaiting(accountId: string): Promise<SlotQueueEntry | undefined>;
  /** The run's own queue entry; undefined when it is not waiting. */
  waitingEntry(accountId: string, runId: string): Promise<SlotQueueEntry | undefined>;
  /**
   * One transaction: in-use + 1 under the account's limit (stamping the account's last grant),
   * admitted + 1 under the capacity, the entry (as read) removed, the run queued -> dispatched
   * holding its slot and its capacity.
   */
  grant(accountId: string, entry: SlotQueueEntry, limits: GrantLimits, now: string): Promise<GrantOutcome>;
  dropEntry(accountId: string, runId: string): Promise<void>;
  /** Gives the run's slot and its capacity back, each exactly once; false when it held neither. */
  release(ref: AnalysisRef, now: string): Promise<boolean>;
  /** 1 for the next run to be dispatched; null when the run is not waiting. */
  queuePosition(accountId: string, runId: string): Promise<number | null>;
  countWaiting(accountId: string): Promise<number>;
  /** The account's slots in use, and when it was last granted one (null: never). */
  slotUse(accountId: string): Promise<SlotUse>;
  /** Sets the in-use count to what the runs say (reconciliation after a crash). */
  recount(accountId: string, inUse: number, now: string): Promise<void>;
  /** Sets the deployment's admitted count to what the runs say (reconciliation after a crash). */
  recountCapacity(admitted: number, now: string): Promise<void>;
  /** Notes that the account has runs waiting for capacity (a new mark each time). */
  markCapacityWaiter(accountId: string): Promise<void>;
  capacityWaiters(): Promise<CapacityWaiter[]>;
  /** Forgets the waiter unless it was marked again since `waiter` was read. */
  clearCapacityWaiter(waiter: CapacityWaiter): Promise<void>;
}

/** Wakes a workflow waiting on a task token: Step Functions SendTaskSuccess, or the local host's own. */
export interface TaskTokenCallbacks {
  succeed(taskToken: string, output: Record<string, unknown>): Promise<void>;
}

/** Intermediate workflow data (signals, findings) too large for a state's payload. */
export interface ArtifactStore {
  putJson(key: string, value: unknown): Promise<void>;
  getJson<T>(key: string): Promise<T>;
}

/** Starts the analysis workflow (Step Functions on AWS, aws-local-stepfunctions locally). */
export interface WorkflowStarter {
  startAnalysis(ref: AnalysisRef): Promise<void>;
}

/** A presigned GET of a source object, for ffmpeg to read without downloading it whole. */
export type SourceUrlSigner = (objectKey: string) => Promise<string>;
