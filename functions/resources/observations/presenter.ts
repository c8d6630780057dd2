import type { ObservationRecord } from '../../domain/runs/model.js';

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
