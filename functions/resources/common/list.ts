/**
 * Lists (DESIGN §3), the one spelling of the envelope: the query every list takes, the response
 * schema, and the presenter that wraps a page of records.
 */
import * as z from '../../shared/zod.js';
import type { Page } from '../../domain/pages.js';
import { pageSizeParam } from './fields.js';

export const listQuerySchema = z.strictObject({
  limit: pageSizeParam('limit', 100, 20),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
});

/** `{object: "list", data, next_cursor}`: pass next_cursor back as `?cursor=` for the next page. */
export const listSchema = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    next_cursor: z.nullable(z.string()).check(z.describe('Opaque; send it back as `cursor` for the next page. Null on the last page.')),
  });
type List<T> = { object: 'list'; data: T[]; next_cursor: string | null };

export const presentList = <T, R>(page: Page<T>, present: (item: T, index: number) => R): List<R> => ({
  object: 'list' as const,
  data: page.items.map(present),
  next_cursor: page.nextCursor,
});
