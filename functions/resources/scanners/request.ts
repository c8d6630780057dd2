import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';
import { scannerDefinitionSchema, scannerFieldRules as rules } from '../../domain/scanners/model.js';

/** POST /v1/scanners body: a scanner definition. */
export const scannerCreateSchema = scannerDefinitionSchema;

/** PATCH body: any subset; optional fields may be cleared with null. */
export const scannerUpdateSchema = z
  .strictObject({
    name: z.optional(rules.name),
    instructions: z.optional(rules.instructions),
    type: z.optional(rules.type),
    profile: z.optional(z.nullable(rules.profile)),
    max_observations: z.optional(z.nullable(rules.max_observations)),
    min_seconds: z.optional(z.nullable(rules.min_seconds)),
    max_seconds: z.optional(z.nullable(rules.max_seconds)),
    output: z.optional(z.nullable(rules.output)),
    metadata: z.optional(z.nullable(rules.metadata)),
  })
  .check(z.refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' }));

export const scannerIdParams = z.strictObject({ scanner_id: idParam });
