import type { AnalysisRecord, MomentRecord, ObservationRecord, RunRecord } from '../../domain/runs/model.js';
import type { AnalysisProgress } from '../../domain/runs/queries.js';
import type { AnalysisProgressResource, MomentListResource, MomentResource, RunResource } from '../components.js';

const seconds = (ms: number) => ms / 1000;

/** A run as GET /v1/runs/{run_id} returns it (and as run events carry it). */
export const presentRun = (run: RunRecord): RunResource => ({
  object: 'run' as const,
  run_id: run.runId,
  status: run.status,
  source_kind: 'upload' as const,
  media_kind: run.mediaKind,
  analysis_id: run.analysisId,
  scanner_id: run.scannerId,
  scanner_version: run.scannerVersion,
  upload_id: run.uploadId,
  source: { kind: 'upload' as const, upload_id: run.uploadId, media_kind: run.mediaKind, duration_ms: run.sourceDurationMs },
  window: run.window ? { analysis_start_seconds: seconds(run.window.startMs), analysis_end_seconds: seconds(run.window.endMs) } : null,
  metadata: run.metadata,
  // Reserved at submission, charged on completion, refunded on failure (DESIGN §5).
  billing: { credits: run.credits, state: run.status === 'completed' ? 'charged' : run.status === 'failed' ? 'refunded' : 'reserved' },
  observation_count: run.observationCount,
  error: run.error,
  provenance: { scanner: { scanner_id: run.scannerId, version: run.scannerVersion, definition: run.scanner } },
  created_at: run.createdAt,
  updated_at: run.updatedAt,
  started_at: run.startedAt,
  completed_at: run.completedAt,
});

/**
 * Stored observations are already in their public shape; this strips nothing but guards the field list.
 * Typed as stored: the schema's per-type variants are checked on real answers by the contract tests.
 */
export const presentObservation = (o: ObservationRecord): ObservationRecord => ({
  object: 'observation',
  observation_id: o.observation_id,
  scanner_id: o.scanner_id,
  scanner_version: o.scanner_version,
  run_id: o.run_id,
  analysis_id: o.analysis_id,
  type: o.type,
  value_type: o.value_type,
  semantics: o.semantics,
  value: o.value,
  title: o.title,
  summary: o.summary,
  relevance_score: o.relevance_score,
  evidence: o.evidence,
  source_metadata: o.source_metadata,
  created_at: o.created_at,
});

export const presentMoment = (m: MomentRecord): MomentResource => ({
  object: 'moment' as const,
  id: m.id,
  start_ms: m.start_ms,
  end_ms: m.end_ms,
  duration_ms: m.duration_ms,
  score: m.score,
  title: m.title,
  event_type: m.event_type,
  transcript_excerpt: m.transcript_excerpt,
  edit: m.edit,
  run_id: m.run_id,
  observation_id: m.observation_id,
});

export const presentMoments = (analysis: AnalysisRecord, moments: MomentRecord[]): MomentListResource => ({
  object: 'moment_list' as const,
  analysis_id: analysis.analysisId,
  count: moments.length,
  moments: [...moments].sort((a, b) => a.rank - b.rank).map(presentMoment),
});

/** Share of the work counted by chunks; the rest is merging and persisting, so only completion reaches 1. */
const CHUNKS_SHARE = 0.95;

/** GET /v1/analyses/{analysis_id}/progress: queue position while queued, chunks while processing. */
export function presentProgress({ analysis, run, queuePosition }: AnalysisProgress): AnalysisProgressResource {
  const chunksDone = Math.min(analysis.chunksDone, analysis.chunksTotal ?? 0);
  const chunkFraction = analysis.chunksTotal ? chunksDone / analysis.chunksTotal : 0;
  return {
    object: 'analysis_progress' as const,
    analysis_id: analysis.analysisId,
    // A one-off analysis's work record is internal.
    run_id: run.oneOff ? null : run.runId,
    status: run.status,
    queue_position: queuePosition,
    chunks_total: analysis.chunksTotal,
    chunks_done: chunksDone,
    fraction: run.status === 'completed' ? 1 : Math.round(chunkFraction * CHUNKS_SHARE * 1000) / 1000,
    updated_at: analysis.updatedAt > run.updatedAt ? analysis.updatedAt : run.updatedAt,
  };
}
