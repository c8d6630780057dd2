import * as z from '../../shared/zod.js';
import { idField, idParam } from '../common/fields.js';
import { metadataSchema } from '../../domain/metadata.js';

/** POST /v1/scanners/{scanner_id}/runs. Window rules that need the scanner and upload live in domain/runs. */
export const runCreateSchema = z.strictObject({
  upload_id: idField,
  analysis_start_seconds: z.optional(z.number().check(z.minimum(0))),
  analysis_end_seconds: z.optional(z.number().check(z.positive())),
  metadata: z.optional(metadataSchema),
});

export const runIdParams = z.strictObject({ run_id: idParam });
