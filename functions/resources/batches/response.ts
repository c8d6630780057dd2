import * as z from '../../shared/zod.js';
import { metadataSchema } from '../../domain/metadata.js';
import { batchStatuses, itemStatuses } from '../../domain/batches/model.js';
import { count, id, nullableTimestamp, terminalErrorSchema, timestamp } from '../common/response.js';

export const batchSummarySchema = z.object({
  object: z.literal('scanner_batch'),
  batch_id: id('batch'),
  status: z.enum(batchStatuses),
  counters: z
    .object({ total: count, queued: count, processing: count, completed: count, failed: count, canceled: count })
    .check(z.describe('Always add up to total.')),
  created_at: timestamp,
  updated_at: timestamp,
  completed_at: nullableTimestamp,
});
export type BatchSummaryResource = z.infer<typeof batchSummarySchema>;

export const batchItemSchema = z.object({
  object: z.literal('scanner_batch_item'),
  client_id: z.string(),
  scanner_id: id('scanner'),
  scanner_version: z.int().check(z.minimum(1), z.describe('Pinned at submission.')),
  upload_id: id('upload'),
  metadata: metadataSchema,
  status: z.enum(itemStatuses),
  run_id: z.nullable(id('run')),
  analysis_id: z.nullable(id('analysis')),
  error: z.nullable(terminalErrorSchema),
  created_at: timestamp,
  updated_at: timestamp,
});
export type BatchItemResource = z.infer<typeof batchItemSchema>;

export const batchSchema = z.extend(batchSummarySchema, {
  items: z.array(batchItemSchema).check(z.describe('One page of items, in request order.')),
  items_next_cursor: z.nullable(count).check(z.describe('Send as item_cursor for the next page of items; null on the last.')),
});
export type BatchResource = z.infer<typeof batchSchema>;
