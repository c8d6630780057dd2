import { z } from 'zod';

/** Length in characters (code points), as a person counts them, not UTF-16 units. */
export const maxChars = (max: number) =>
  z.string().refine((value) => [...value].length <= max, { message: `At most ${max} characters.` });

/** Bounded scalar metadata (DESIGN §3): at most 20 keys, key 1..40 chars, bounded values. */
export const metadataSchema = z
  .unknown()
  // JSON may carry a "__proto__" key that a JavaScript record silently drops: refuse it instead.
  .refine((value) => !(typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')), {
    message: '"__proto__" cannot be a metadata key.',
  })
  .pipe(
    z
      .record(z.string().min(1).pipe(maxChars(40)), z.union([maxChars(500), z.number(), z.boolean(), z.null()]))
      .refine((value) => Object.keys(value).length <= 20, { message: 'Metadata holds at most 20 keys.' }),
  );
export type Metadata = z.infer<typeof metadataSchema>;

export const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(2048).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const noQuerySchema = z.strictObject({});

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), next_cursor: z.string().nullable() });
