import * as z from 'zod';
import { listQuerySchema, metadataSchema } from './common.js';
import { scannerTypes } from './scanner.js';
import { evidenceKinds } from '../domain/analysis/observation-types.js';

/** POST /v1/scanners/{scanner_id}/runs. Window rules that need the scanner and upload live in domain/runs. */
export const runCreateSchema = z.strictObject({
  upload_id: z.string().min(1).max(200),
  analysis_start_seconds: z.number().min(0).optional(),
  analysis_end_seconds: z.number().positive().optional(),
  metadata: metadataSchema.optional(),
});
export type RunCreate = z.infer<typeof runCreateSchema>;

export const runIdParams = z.strictObject({ run_id: z.string().max(200) });
export const analysisIdParams = z.strictObject({ analysis_id: z.string().max(200) });

/** GET /v1/observations: every filter optional, combined with AND. */
export const observationsQuerySchema = listQuerySchema.extend({
  scanner_id: z.string().max(200).optional(),
  scanner_version: z.coerce.number().int().min(1).optional(),
  run_id: z.string().max(200).optional(),
  type: z.enum(scannerTypes).optional(),
  media_kind: z.enum(['video', 'audio']).optional(),
  evidence_kind: z.enum([...evidenceKinds.video, ...evidenceKinds.audio]).optional(),
  created_after: z.iso.datetime({ offset: true }).optional(),
});
export type ObservationsQuery = z.infer<typeof observationsQuerySchema>;
