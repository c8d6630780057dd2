import { z } from 'zod';

/** Bounded scalar metadata (DESIGN §3): at most 20 keys, key 1..40 chars, bounded values. */
export const metadataSchema = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
  .refine((value) => Object.keys(value).length <= 20, { message: 'Metadata holds at most 20 keys.' });
export type Metadata = z.infer<typeof metadataSchema>;

/** Length in characters (code points), as a person counts them, not UTF-16 units. */
export const maxChars = (max: number) =>
  z.string().refine((value) => [...value].length <= max, { message: `At most ${max} characters.` });

export const listQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(2048).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const noQuerySchema = z.strictObject({});

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), next_cursor: z.string().nullable() });
