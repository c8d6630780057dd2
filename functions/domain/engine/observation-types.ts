import type { ScannerType } from '../scanners/model.js';
import type { MediaKind } from '../uploads/model.js';

/** SPEC "Scanner types and the observation value they fix": one row per type, nothing else decides it. */
export const observationTypes = {
  monitor: { value_type: 'boolean', semantics: 'match_found' },
  summarizer: { value_type: 'string', semantics: 'moment_summary' },
  classifier: { value_type: 'string', semantics: 'classification_label' },
  scorer: { value_type: 'number', semantics: 'relevance_score' },
  extractor: { value_type: 'object', semantics: 'extracted_fields' },
  find_moments: { value_type: 'object', semantics: 'timestamped_moment' },
} as const satisfies Record<ScannerType, { value_type: string; semantics: string }>;

export const evidenceKinds = {
  video: ['visual'],
  audio: ['transcript', 'audio', 'audio_and_transcript'],
} as const satisfies Record<MediaKind, readonly string[]>;

export type EvidenceKind = (typeof evidenceKinds)[MediaKind][number];
