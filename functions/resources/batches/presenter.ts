import { batchStatusOf, type BatchItemRecord, type BatchRecord } from '../../domain/batches/model.js';
import type { BatchView } from '../../domain/batches/submit.js';
import type { BatchItemResource, BatchResource, BatchSummaryResource } from './response.js';

/** A batch as lists show it: state and counters, items not embedded. */
export const presentBatchSummary = (batch: BatchRecord): BatchSummaryResource => ({
  object: 'scanner_batch' as const,
  batch_id: batch.batchId,
  status: batchStatusOf(batch.counters, batch.cancelRequested),
  counters: { ...batch.counters },
  created_at: batch.createdAt,
  updated_at: batch.updatedAt,
  completed_at: batch.completedAt,
});

const presentBatchItem = (item: BatchItemRecord): BatchItemResource => ({
  object: 'scanner_batch_item' as const,
  client_id: item.clientId,
  scanner_id: item.scannerId,
  scanner_version: item.scannerVersion,
  upload_id: item.uploadId,
  metadata: item.metadata,
  status: item.status,
  run_id: item.runId,
  analysis_id: item.analysisId,
  error: item.error,
  created_at: item.createdAt,
  updated_at: item.updatedAt,
});

/** POST and GET of one batch: the summary, one page of items, and the numeric cursor of the next. */
export const presentBatch = ({ batch, items, nextItemOffset }: BatchView): BatchResource => ({
  ...presentBatchSummary(batch),
  items: items.map(presentBatchItem),
  items_next_cursor: nextItemOffset,
});
