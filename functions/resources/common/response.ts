/**
 * The building blocks of the response schemas (DESIGN §3): timestamps, ids, counts and the shapes
 * several resources share. Like every response schema, only the OpenAPI document and the tests
 * use these values; Lambdas import response modules for their types alone.
 */
import * as z from '../../shared/zod.js';
import { mediaKinds } from '../../domain/uploads/model.js';
import { idPattern, type IdKind } from '../../domain/ids.js';

/** DESIGN §3: ISO 8601 UTC with milliseconds. The format is what clients check; zod's own regex would only add noise. */
export const timestamp = z.string().check(z.meta({ format: 'date-time', examples: ['2026-11-23T10:15:30.123Z'] }));
export const nullableTimestamp = z.nullable(timestamp);
export const id = (kind: IdKind) => z.string().check(z.regex(idPattern(kind)));
export const count = z.int().check(z.minimum(0));
export const milliseconds = z.int().check(z.minimum(0));
export const mediaKind = z.enum(mediaKinds);

/** Why terminal work failed (runs, analyses, batch items, render assets). */
export const terminalErrorSchema = z.object({ code: z.string(), message: z.string() }).check(z.describe('Why the work ended in failure; null unless it did.'));

/** A window of a source, in seconds (runs of video find_moments scanners, one-off analyses). */
export const windowSchema = z.object({
  analysis_start_seconds: z.number().check(z.minimum(0)),
  analysis_end_seconds: z.number().check(z.minimum(0)),
});
