import type { Page, PageRequest, LedgerEntry } from '../ports.js';
import type { MediaKind } from '../analysis/observation-types.js';
import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord, TerminalError } from './model.js';

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
export type RunnableSourceLookup = (accountId: string, uploadId: string) => Promise<RunnableSource>;

export type ReservationOutcome = 'created' | 'insufficient_credits';

export interface RunStore {
  /** Run, analysis, wallet debit and ledger entry in one transaction; never below zero. */
  createWithReservation(run: RunRecord, analysis: AnalysisRecord, entry: LedgerEntry): Promise<ReservationOutcome>;
  getRun(accountId: string, runId: string): Promise<RunRecord | undefined>;
  getAnalysis(accountId: string, analysisId: string): Promise<AnalysisRecord | undefined>;
  /** queued|dispatched -> processing; false when the run is no longer startable. */
  markProcessing(ref: AnalysisRef, now: string): Promise<boolean>;
  recordChunkPlan(ref: AnalysisRef, chunksTotal: number, now: string): Promise<void>;
  recordChunkDone(ref: AnalysisRef, now: string): Promise<void>;
  /** Writes observations and moments at rank-keyed items, so a retried write replaces, never duplicates. */
  putResults(ref: AnalysisRef, observations: ObservationRecord[], moments: MomentRecord[]): Promise<void>;
  /** processing -> completed, the reservation becomes the charge; false when not processing. */
  complete(ref: AnalysisRef, observationCount: number, now: string): Promise<boolean>;
  /** -> failed with exactly one refund (conditioned on the reservation still being held). */
  failAndRefund(run: RunRecord, error: TerminalError, refund: LedgerEntry, now: string): Promise<boolean>;
  listRunObservations(accountId: string, runId: string, page: PageRequest): Promise<Page<ObservationRecord>>;
  /** Observations across the account, newest first, from `fromId` on, keeping what `keep` accepts. */
  listAccountObservations(
    accountId: string,
    filter: { fromId?: string | undefined; keep?: ((o: ObservationRecord) => boolean) | undefined },
    page: PageRequest,
  ): Promise<Page<ObservationRecord>>;
  listMoments(accountId: string, analysisId: string): Promise<MomentRecord[]>;
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
