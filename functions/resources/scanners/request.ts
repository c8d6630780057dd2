import * as z from '../../shared/zod.js';
import { idParam, maxChars, metadataSchema } from '../common/fields.js';

export const scannerTypes = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'] as const;
export type ScannerType = (typeof scannerTypes)[number];
export const profiles = ['conversation', 'gameplay'] as const;

export const SPEC_MAX_OBSERVATIONS = 50;
export const MOMENT_SECONDS = { min: 5, max: 600 } as const;

const outputSchema = z.strictObject({
  /** Classifier labels (DESIGN §3): 2..50; `other` is the reserved fallback. */
  labels: z.optional(z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))).check(z.minLength(2), z.maxLength(50))),
  /** Extractor fields (DESIGN §3): 1..20 snake_case names. */
  fields: z.optional(
    z.array(z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'Field names match ^[a-z][a-z0-9_]{0,63}$.'))).check(z.minLength(1), z.maxLength(20)),
  ),
});

const momentSeconds = z.int().check(z.minimum(MOMENT_SECONDS.min), z.maximum(MOMENT_SECONDS.max));
const profile = z.enum(profiles);
const maxObservations = z.int().check(z.minimum(1), z.maximum(SPEC_MAX_OBSERVATIONS));

const definitionShape = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  instructions: z.pipe(z.string().check(z.trim(), z.minLength(1)), maxChars(600)),
  type: z.enum(scannerTypes),
  profile: z.optional(profile),
  max_observations: z.optional(maxObservations),
  min_seconds: z.optional(momentSeconds),
  max_seconds: z.optional(momentSeconds),
  output: z.optional(outputSchema),
  metadata: z.optional(metadataSchema),
};

/** POST /v1/scanners body. Cross-field rules live in domain/scanners.ts (they apply to PATCH too). */
export const scannerCreateSchema = z.strictObject(definitionShape);
export type ScannerDefinition = z.infer<typeof scannerCreateSchema>;

/** PATCH body: any subset; optional fields may be cleared with null. */
export const scannerUpdateSchema = z
  .strictObject({
    name: z.optional(definitionShape.name),
    instructions: z.optional(definitionShape.instructions),
    type: z.optional(definitionShape.type),
    profile: z.optional(z.nullable(profile)),
    max_observations: z.optional(z.nullable(maxObservations)),
    min_seconds: z.optional(z.nullable(momentSeconds)),
    max_seconds: z.optional(z.nullable(momentSeconds)),
    output: z.optional(z.nullable(outputSchema)),
    metadata: z.optional(z.nullable(metadataSchema)),
  })
  .check(z.refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' }));
export type ScannerPatch = z.infer<typeof scannerUpdateSchema>;

export const scannerIdParams = z.strictObject({ scanner_id: idParam });
