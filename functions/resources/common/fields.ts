import * as z from '../../shared/zod.js';

/** A page size in a query string: a whole number from 1 to `max` (a larger one is refused, not clamped). */
export const pageSizeParam = (name: string, max: number, fallback: number) =>
  z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d{1,3}$/, `${name} is a whole number from 1 to ${max}.`)), z.transform(Number)),
      z.int().check(z.minimum(1), z.maximum(max, `${name} is at most ${max}.`)),
    ),
    fallback,
  );

export const noQuerySchema = z.strictObject({});

/** A resource id in a path or filter: any string, since a malformed id is just an unknown resource (404), like a foreign one. */
export const idParam = z.string().check(z.maxLength(200));
/** A resource id in a request body: required, bounded. */
export const idField = z.string().check(z.minLength(1), z.maxLength(200));
