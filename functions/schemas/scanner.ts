import * as z from 'zod';
import { maxChars, metadataSchema } from './common.js';

export const scannerTypes = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'] as const;
export type ScannerType = (typeof scannerTypes)[number];
export const profiles = ['conversation', 'gameplay'] as const;

export const SPEC_MAX_OBSERVATIONS = 50;
export const MOMENT_SECONDS = { min: 5, max: 600 } as const;

const outputSchema = z.strictObject({
  /** Classifier labels (DESIGN §3): 2..50; `other` is the reserved fallback. */
  labels: z.array(z.string().trim().min(1).max(100)).min(2).max(50).optional(),
  /** Extractor fields (DESIGN §3): 1..20 snake_case names. */
  fields: z
    .array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'Field names match ^[a-z][a-z0-9_]{0,63}$.'))
    .min(1)
    .max(20)
    .optional(),
});

const momentSeconds = z.int().min(MOMENT_SECONDS.min).max(MOMENT_SECONDS.max);

const definitionShape = {
  name: z.string().trim().min(1).max(200),
  instructions: z.string().trim().min(1).pipe(maxChars(600)),
  type: z.enum(scannerTypes),
  profile: z.enum(profiles).optional(),
  max_observations: z.int().min(1).max(SPEC_MAX_OBSERVATIONS).optional(),
  min_seconds: momentSeconds.optional(),
  max_seconds: momentSeconds.optional(),
  output: outputSchema.optional(),
  metadata: metadataSchema.optional(),
};

/** POST /v1/scanners body. Cross-field rules live in domain/scanners.ts (they apply to PATCH too). */
export const scannerCreateSchema = z.strictObject(definitionShape);
export type ScannerDefinition = z.infer<typeof scannerCreateSchema>;

/** PATCH body: any subset; optional fields may be cleared with null. */
export const scannerUpdateSchema = z
  .strictObject({
    name: definitionShape.name.optional(),
    instructions: definitionShape.instructions.optional(),
    type: definitionShape.type.optional(),
    profile: definitionShape.profile.unwrap().nullable().optional(),
    max_observations: definitionShape.max_observations.unwrap().nullable().optional(),
    min_seconds: momentSeconds.nullable().optional(),
    max_seconds: momentSeconds.nullable().optional(),
    output: outputSchema.nullable().optional(),
    metadata: metadataSchema.nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' });
export type ScannerPatch = z.infer<typeof scannerUpdateSchema>;

/** Any string: a malformed id is just an unknown scanner (404), like a foreign one. */
export const scannerIdParams = z.strictObject({ scanner_id: z.string().max(200) });
