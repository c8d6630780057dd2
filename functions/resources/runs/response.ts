import * as z from '../../shared/zod.js';
import { metadataSchema } from '../../domain/metadata.js';
import { billingStates, runStatuses } from '../../domain/runs/model.js';
import { count, id, mediaKind, milliseconds, nullableTimestamp, terminalErrorSchema, timestamp, windowSchema } from '../common/response.js';
import { scannerCreateSchema } from '../scanners/request.js';

export const runSchema = z.object({
  object: z.literal('run'),
  run_id: id('run'),
  status: z.enum(runStatuses),
  source_kind: z.literal('upload'),
  media_kind: mediaKind,
  analysis_id: id('analysis').check(z.describe("The analysis that carries the run's lifecycle, progress and billing.")),
  scanner_id: id('scanner'),
  scanner_version: z.int().check(z.minimum(1)),
  upload_id: id('upload'),
  source: z.object({ kind: z.literal('upload'), upload_id: id('upload'), media_kind: mediaKind, duration_ms: milliseconds }),
  window: z.nullable(windowSchema),
  metadata: metadataSchema,
  billing: z.object({ credits: count, state: z.enum(billingStates) }),
  observation_count: z.nullable(count),
  error: z.nullable(terminalErrorSchema),
  provenance: z.object({
    scanner: z.object({ scanner_id: id('scanner'), version: z.int().check(z.minimum(1)), definition: scannerCreateSchema }),
  }),
  created_at: timestamp,
  updated_at: timestamp,
  started_at: nullableTimestamp,
  completed_at: nullableTimestamp,
});
export type RunResource = z.infer<typeof runSchema>;
