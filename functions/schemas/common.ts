import * as z from 'zod';

/**
 * Length in characters (code points), as a person counts them, not UTF-16 units. JSON Schema's
 * maxLength counts code points too, so the OpenAPI document states the same rule.
 */
export const maxChars = (max: number) =>
  z
    .string()
    .refine((value) => [...value].length <= max, { message: `At most ${max} characters.` })
    .meta({ maxLength: max });

/**
 * A number DynamoDB stores exactly as sent: within the safe-integer range (the SDK refuses larger
 * ones) and not so small that DynamoDB underflows (its smallest magnitude is 1e-130).
 */
const storableNumber = z
  .number()
  .refine((n) => Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130), {
    message: `Numbers must be 0 or between 1e-130 and ${Number.MAX_SAFE_INTEGER} in magnitude.`,
  });

/** Bounded scalar metadata (DESIGN §3): at most 20 keys, key 1..40 chars, bounded values. */
export const metadataSchema = z
  .unknown()
  // JSON may carry a "__proto__" key that a JavaScript record silently drops: refuse it instead.
  .refine((value) => !(typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')), {
    message: '"__proto__" cannot be a metadata key.',
  })
  .pipe(
    z
      .record(z.string().min(1).pipe(maxChars(40)), z.union([maxChars(500), storableNumber, z.boolean(), z.null()]))
      .refine((value) => Object.keys(value).length <= 20, { message: 'Metadata holds at most 20 keys.' }),
  )
  // The same rules as JSON Schema, for the OpenAPI document (refinements have no JSON Schema form).
  .meta({
    type: 'object',
    maxProperties: 20,
    propertyNames: { minLength: 1, maxLength: 40 },
    additionalProperties: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
  });
export type Metadata = z.infer<typeof metadataSchema>;

/** A page size in a query string: a whole number from 1 to `max` (a larger one is refused, not clamped). */
export const pageSizeParam = (name: string, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,3}$/, `${name} is a whole number from 1 to ${max}.`)
    .transform(Number)
    .pipe(z.int().min(1).max(max, `${name} is at most ${max}.`))
    .default(fallback);

export const listQuerySchema = z.strictObject({
  limit: pageSizeParam('limit', 100, 20),
  cursor: z.string().min(1).max(2048).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const noQuerySchema = z.strictObject({});

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), next_cursor: z.string().nullable() });
