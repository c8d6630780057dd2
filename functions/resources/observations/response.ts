import * as z from '../../shared/zod.js';
import { evidenceKinds, observationTypes } from '../../domain/engine/observation-types.js';
import { metadataSchema } from '../../domain/metadata.js';
import { id, mediaKind, milliseconds, timestamp } from '../common/response.js';

export const evidenceSchema = z.object({
  media_kind: mediaKind,
  evidence_kind: z.enum([...evidenceKinds.video, ...evidenceKinds.audio]).check(z.describe('Video: visual. Audio: transcript, audio or audio_and_transcript.')),
  start_ms: milliseconds,
  end_ms: milliseconds,
  duration_ms: milliseconds,
  transcript_excerpt: z.nullable(z.string()).check(z.describe('Not a certified verbatim transcript.')),
  speaker: z.nullable(z.string()),
  signals: z.array(z.string()).check(z.describe('The signals the answer rests on; may be empty.')),
});

/** SPEC "Scanner types and the observation value they fix": one variant per type, from the same table. */
const valueOf = {
  monitor: z.boolean(),
  summarizer: z.string(),
  classifier: z.string().check(z.describe('A configured label, or `other` when none fits.')),
  scorer: z.number().check(z.minimum(0), z.maximum(1)),
  extractor: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).check(z.describe('Only the requested output fields.')),
  find_moments: z.object({ event_type: z.string(), moment_id: z.optional(id('moment')).check(z.describe('Video only: a renderable Moment ID.')) }),
} as const satisfies Record<keyof typeof observationTypes, z.ZodMiniType>;

const observationVariant = <T extends keyof typeof observationTypes>(type: T) =>
  z.object({
    object: z.literal('observation'),
    observation_id: id('observation'),
    scanner_id: id('scanner'),
    scanner_version: z.int().check(z.minimum(1)),
    run_id: id('run'),
    analysis_id: id('analysis'),
    type: z.literal(type),
    value_type: z.literal(observationTypes[type].value_type),
    semantics: z.literal(observationTypes[type].semantics),
    value: valueOf[type],
    title: z.string(),
    summary: z.string(),
    relevance_score: z.number().check(z.describe('Ranks support for the instructions; not a calibrated confidence.')),
    evidence: evidenceSchema,
    // A copy of the run's metadata (described by name: a described copy would not be the Metadata component).
    source_metadata: metadataSchema,
    created_at: timestamp,
  });

export const observationSchema = z.discriminatedUnion('type', [
  observationVariant('monitor'),
  observationVariant('summarizer'),
  observationVariant('classifier'),
  observationVariant('scorer'),
  observationVariant('extractor'),
  observationVariant('find_moments'),
]);
export type ObservationResource = z.infer<typeof observationSchema>;
