import type { AnalysisRecord } from '../../domain/runs/model.js';
import type { AnalysisQuote, SourcePreflight } from '../../domain/analyses/one-off.js';
import type { Span } from '../../domain/analysis/signals.js';
import type { AnalysisQuoteResource, AnalysisResource, SourcePreflightResource } from '../components.js';

const seconds = (ms: number) => ms / 1000;
const presentWindow = (window: Span) => ({ analysis_start_seconds: seconds(window.startMs), analysis_end_seconds: seconds(window.endMs) });

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
