import * as z from '../../shared/zod.js';
import { idField, idParam, listQuerySchema, metadataSchema } from '../common/fields.js';
import { scannerTypes } from '../scanners/request.js';
import { evidenceKinds } from '../../domain/analysis/observation-types.js';

/** POST /v1/scanners/{scanner_id}/runs. Window rules that need the scanner and upload live in domain/runs. */
export const runCreateSchema = z.strictObject({
  upload_id: idField,
  analysis_start_seconds: z.optional(z.number().check(z.minimum(0))),
  analysis_end_seconds: z.optional(z.number().check(z.positive())),
  metadata: z.optional(metadataSchema),
});
export type RunCreate = z.infer<typeof runCreateSchema>;

export const runIdParams = z.strictObject({ run_id: idParam });
export const analysisIdParams = z.strictObject({ analysis_id: idParam });

/** GET /v1/observations: every filter optional, combined with AND. */
export const observationsQuerySchema = z.extend(listQuerySchema, {
  scanner_id: z.optional(idParam),
  scanner_version: z.optional(z.coerce.number().check(z.int(), z.minimum(1))),
  run_id: z.optional(idParam),
  type: z.optional(z.enum(scannerTypes)),
  media_kind: z.optional(z.enum(['video', 'audio'])),
  evidence_kind: z.optional(z.enum([...evidenceKinds.video, ...evidenceKinds.audio])),
  created_after: z.optional(z.iso.datetime({ offset: true })),
});
export type ObservationsQuery = z.infer<typeof observationsQuerySchema>;
