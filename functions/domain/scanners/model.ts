import * as z from '../../shared/zod.js';
import { maxChars, metadataSchema } from '../metadata.js';

export const scannerTypes = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'] as const;
export type ScannerType = (typeof scannerTypes)[number];
export const profiles = ['conversation', 'gameplay'] as const;
export type Profile = (typeof profiles)[number];

/** The label every classifier may answer when no configured label fits. */
export const FALLBACK_LABEL = 'other';

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

/** The rule of each definition field; the PATCH body applies the same ones. */
export const scannerFieldRules = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  instructions: z.pipe(z.string().check(z.trim(), z.minLength(1)), maxChars(600)),
  type: z.enum(scannerTypes),
  profile: z.enum(profiles),
  max_observations: z.int().check(z.minimum(1), z.maximum(SPEC_MAX_OBSERVATIONS)),
  min_seconds: momentSeconds,
  max_seconds: momentSeconds,
  output: outputSchema,
  metadata: metadataSchema,
};

const rules = scannerFieldRules;
/** A scanner definition (POST /v1/scanners body). Cross-field rules live in scanners.ts (they apply to PATCH too). */
export const scannerDefinitionSchema = z.strictObject({
  name: rules.name,
  instructions: rules.instructions,
  type: rules.type,
  profile: z.optional(rules.profile),
  max_observations: z.optional(rules.max_observations),
  min_seconds: z.optional(rules.min_seconds),
  max_seconds: z.optional(rules.max_seconds),
  output: z.optional(rules.output),
  metadata: z.optional(rules.metadata),
});
export type ScannerDefinition = z.infer<typeof scannerDefinitionSchema>;

/** A PATCH of a definition: any subset of its fields; an optional field may be cleared with null. */
export type ScannerPatch = Partial<Pick<ScannerDefinition, 'name' | 'instructions' | 'type'>> & {
  [K in Exclude<keyof ScannerDefinition, 'name' | 'instructions' | 'type'>]?: ScannerDefinition[K] | null;
};

export interface ScannerRecord extends ScannerDefinition {
  scannerId: string;
  version: number;
  /** When the scanner (version 1) was created. */
  createdAt: string;
  /** When this version was created. */
  updatedAt: string;
}
