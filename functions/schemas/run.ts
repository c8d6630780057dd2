import { z } from 'zod';
import { metadataSchema } from './common.js';

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
