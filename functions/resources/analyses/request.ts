import * as z from '../../shared/zod.js';
import { idParam } from '../common/fields.js';
import { listQuerySchema } from '../common/list.js';
import { maxChars } from '../../domain/metadata.js';
import { MOMENT_SECONDS, profiles, SPEC_MAX_OBSERVATIONS } from '../../domain/scanners/model.js';
import { chatMomentTypes } from '../../domain/engine/moment-brief.js';
import { analysisKinds, analysisStatuses, speechCleanups } from '../../domain/runs/model.js';
import { ONE_OFF_DEFAULTS } from '../../domain/analyses/model.js';

/** A source URL as sent; what it may point at is decided in domain/sources (422 untrusted_source_url). */
const sourceUrl = z.string().check(z.trim(), z.minLength(1), z.maxLength(4096));
const seconds = z.number().check(z.minimum(0), z.maximum(10 * 24 * 3600));

/** POST /v1/sources/preflight. */
export const preflightSchema = z.strictObject({ source_url: sourceUrl });

const momentSeconds = z.int().check(z.minimum(MOMENT_SECONDS.min), z.maximum(MOMENT_SECONDS.max));

/**
 * POST /v1/analyses (SPEC "One-off analysis request fields"), and POST /v1/analyses/quote, which
 * takes the same body so a client prices exactly what it will submit: every field is validated
 * alike, and only the source, the window and use_proof_allowance bear on the price.
 */
export const analysisCreateSchema = z
  .strictObject({
    source_url: sourceUrl,
    analysis_start_seconds: seconds,
    analysis_end_seconds: seconds,
    /** Pay with the account's one proof analysis (window <= 7,200 s) instead of credits. */
    use_proof_allowance: z._default(z.boolean(), false),
    what_to_find: z.optional(z.pipe(z.string().check(z.trim(), z.minLength(1)), maxChars(600))),
    profile: z.optional(z.enum(profiles)),
    chat_moment_types: z.optional(
      z.array(z.enum(chatMomentTypes)).check(
        z.minLength(1),
        z.maxLength(chatMomentTypes.length),
        z.refine((types) => new Set(types).size === types.length, { message: 'Each chat moment type may appear once.' }),
        z.refine((types) => !types.includes('auto') || types.length === 1, { message: 'auto cannot be combined with another value.' }),
      ),
    ),
    speech_cleanup: z.optional(z.enum(speechCleanups)),
    max_moments: z.optional(z.int().check(z.minimum(1), z.maximum(SPEC_MAX_OBSERVATIONS))),
    min_seconds: z.optional(momentSeconds),
    max_seconds: z.optional(momentSeconds),
  })
  .check(
    z.superRefine((input, ctx) => {
      // SPEC: chat moment types and speech cleanup are conversation settings.
      if (input.profile === 'gameplay') {
        for (const field of ['chat_moment_types', 'speech_cleanup'] as const) {
          if (input[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} applies only to the conversation profile.` });
        }
      }
      const min = input.min_seconds ?? ONE_OFF_DEFAULTS.min_seconds;
      const max = input.max_seconds ?? ONE_OFF_DEFAULTS.max_seconds;
      if (min > max) {
        const path = input.min_seconds !== undefined ? 'min_seconds' : 'max_seconds';
        ctx.addIssue({ code: 'custom', path: [path], message: `min_seconds (${min}) must not exceed max_seconds (${max}).` });
      }
    }),
  );

/** GET /v1/analyses: every filter optional, combined with AND. */
export const analysesQuerySchema = z.extend(listQuerySchema, {
  status: z.optional(z.enum(analysisStatuses)),
  kind: z.optional(z.enum(analysisKinds)),
  created_after: z.optional(z.iso.datetime({ offset: true })),
});

export const analysisIdParams = z.strictObject({ analysis_id: idParam });
