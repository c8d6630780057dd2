import type { AnalysisRecord, MomentRecord } from '../../domain/runs/model.js';
import type { AnalysisProgress } from '../../domain/runs/queries.js';
import type { AnalysisQuote, SourcePreflight } from '../../domain/analyses/one-off.js';
import type { Span } from '../../domain/engine/signals.js';
import type {
  AnalysisProgressResource,
  AnalysisQuoteResource,
  AnalysisResource,
  MomentListResource,
  MomentResource,
  SourcePreflightResource,
} from './response.js';

const seconds = (ms: number) => ms / 1000;
/** A window of a source in seconds, as analyses and runs show it. */
export const presentWindow = (window: Span) => ({ analysis_start_seconds: seconds(window.startMs), analysis_end_seconds: seconds(window.endMs) });

/** An analysis as GET /v1/analyses/{analysis_id} returns it (DESIGN 10), and as analysis events carry it. */
export function presentAnalysis(analysis: AnalysisRecord): AnalysisResource {
  const request = analysis.request;
  return {
    object: 'analysis' as const,
    analysis_id: analysis.analysisId,
    kind: analysis.kind,
    // A one-off analysis's work record is internal.
    run_id: analysis.kind === 'scanner_run' ? analysis.runId : null,
    status: analysis.status,
    source: analysis.source ?? null,
    window: analysis.window ? presentWindow(analysis.window) : null,
    what_to_find: request?.what_to_find ?? null,
    profile: request?.profile ?? null,
    chat_moment_types: request?.chat_moment_types ?? null,
    speech_cleanup: request?.speech_cleanup ?? null,
    max_moments: request?.max_moments ?? null,
    min_seconds: request?.min_seconds ?? null,
    max_seconds: request?.max_seconds ?? null,
    billing: { credits: analysis.reservedCredits, state: analysis.billing, proof: analysis.proof ?? false },
    error: analysis.error,
    created_at: analysis.createdAt,
    updated_at: analysis.updatedAt,
  };
}

/** POST /v1/sources/preflight (DESIGN 10). */
export const presentPreflight = ({ source, maxWindowMs, proofAvailable }: SourcePreflight): SourcePreflightResource => {
  if (source.kind !== 'url') throw new TypeError('A preflight measures a URL source');
  return {
    object: 'source_preflight' as const,
    provider: source.provider,
    host: source.host,
    media_kind: source.media_kind,
    duration_ms: source.duration_ms,
    title: source.title,
    size_bytes: source.size_bytes,
    max_window_seconds: Math.floor(maxWindowMs / 1000),
    proof_available: proofAvailable,
  };
};

/** POST /v1/analyses/quote (DESIGN 10). */
export const presentQuote = (quote: AnalysisQuote): AnalysisQuoteResource => ({
  object: 'analysis_quote' as const,
  window: presentWindow(quote.window),
  billed_seconds: seconds(quote.billedMs),
  credits: quote.credits,
  balance_credits: quote.balance,
  affordable: quote.affordable,
  proof: quote.proof,
  limits: { max_source_bytes: quote.limits.maxSourceBytes, concurrency: quote.limits.concurrency },
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
