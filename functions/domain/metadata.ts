/** Values every feature accepts as they are given: caller metadata, and text counted as people count it. */
import * as z from '../shared/zod.js';

/**
 * Length in characters (code points), as a person counts them, not UTF-16 units. JSON Schema's
 * maxLength counts code points too, so the OpenAPI document states the same rule.
 */
export const maxChars = (max: number) =>
  z.string().check(
    z.refine((value) => [...value].length <= max, { message: `At most ${max} characters.` }),
    z.meta({ maxLength: max }),
  );

/**
 * A number DynamoDB stores exactly as sent: within the safe-integer range (the SDK refuses larger
 * ones) and not so small that DynamoDB underflows (its smallest magnitude is 1e-130).
 */
const storableNumber = z.number().check(
  z.refine((n) => Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130), {
    message: `Numbers must be 0 or between 1e-130 and ${Number.MAX_SAFE_INTEGER} in magnitude.`,
  }),
);

/** Bounded scalar metadata (DESIGN §3): at most 20 keys, key 1..40 chars, bounded values. */
export const metadataSchema = z
  .pipe(
    z.unknown().check(
      // JSON may carry a "__proto__" key that a JavaScript record silently drops: refuse it instead.
      z.refine((value) => !(typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')), {
        message: '"__proto__" cannot be a metadata key.',
      }),
    ),
    z
      .record(z.pipe(z.string().check(z.minLength(1)), maxChars(40)), z.union([maxChars(500), storableNumber, z.boolean(), z.null()]))
      .check(z.refine((value) => Object.keys(value).length <= 20, { message: 'Metadata holds at most 20 keys.' })),
  )
  // The same rules as JSON Schema, for the OpenAPI document (refinements have no JSON Schema form).
  .check(
    z.meta({
      type: 'object',
      maxProperties: 20,
      propertyNames: { minLength: 1, maxLength: 40 },
      additionalProperties: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
    }),
  );
export type Metadata = z.infer<typeof metadataSchema>;
