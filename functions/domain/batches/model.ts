import type { Metadata } from '../metadata.js';
import { announcement, type Announcement } from '../events/model.js';
import type { TerminalError } from '../runs/model.js';

/** SPEC "Batch and item states"; the transitions are docs/batches.md's table, enforced here and only here. */
export const itemStatuses = ['queued', 'processing', 'completed', 'failed', 'canceled'] as const;
export type ItemStatus = (typeof itemStatuses)[number];
export const batchStatuses = ['queued', 'processing', 'canceling', 'completed', 'partial', 'failed', 'canceled'] as const;
type BatchStatus = (typeof batchStatuses)[number];

export type BatchCounters = Record<'total' | ItemStatus, number>;

/**
 * Every item transition there is: what moves an item, and from which state. A store applies one
 * only while the item is still in `from` (a conditional write), and moves the batch's counters
 * in the same transaction, so the counters always add up to total.
 */
export const itemTransitions = {
  /** Its run was created with its credits reserved (never while the batch is canceling). */
  spawn: { from: 'queued', to: 'processing' },
  /** It could not become a run: the wallet ran dry, or its upload is no longer runnable. */
  reject: { from: 'queued', to: 'failed' },
  /** The batch was canceled before the item started: it never will. */
  cancel: { from: 'queued', to: 'canceled' },
  /** Its run ended; the item takes the run's terminal state. */
  complete: { from: 'processing', to: 'completed' },
  fail: { from: 'processing', to: 'failed' },
} as const satisfies Record<string, { from: ItemStatus; to: ItemStatus }>;

export type ItemTransition = keyof typeof itemTransitions;

export const isTerminalItem = (status: ItemStatus): boolean => status === 'completed' || status === 'failed' || status === 'canceled';

/**
 * The batch state is derived from its counters and whether cancel was asked, never stored apart
 * from them, so it cannot disagree with its items (docs/batches.md).
 */
export function batchStatusOf(counters: BatchCounters, cancelRequested: boolean): BatchStatus {
  const settled = counters.completed + counters.failed + counters.canceled;
  if (settled < counters.total) {
    if (cancelRequested) return 'canceling';
    return counters.queued === counters.total ? 'queued' : 'processing';
  }
  if (cancelRequested && counters.canceled > 0) return 'canceled';
  if (counters.completed === counters.total) return 'completed';
  if (counters.completed === 0) return 'failed';
  return 'partial';
}

export const isTerminalBatch = (status: BatchStatus): boolean => !['queued', 'processing', 'canceling'].includes(status);

export interface BatchRecord {
  batchId: string;
  accountId: string;
  counters: BatchCounters;
  cancelRequested: boolean;
  createdAt: string;
  updatedAt: string;
  /** Set once, when the batch workflow has settled every item. */
  completedAt: string | null;
}

export interface BatchItemRecord {
  batchId: string;
  accountId: string;
  /** Position in the request, 0-based: the numeric item cursor counts these. */
  index: number;
  clientId: string;
  scannerId: string;
  /** The scanner version current at submission; the item's run uses exactly this definition. */
  scannerVersion: number;
  uploadId: string;
  metadata: Metadata;
  status: ItemStatus;
  runId: string | null;
  analysisId: string | null;
  error: TerminalError | null;
  createdAt: string;
  updatedAt: string;
  /** Internal: the token of the batch workflow waiting for this item's run; never in a response. */
  taskToken?: string;
}

/** A batch's one event, whatever its terminal state (DESIGN 8). */
export const batchEndAnnouncements = (batchId: string, at: string): Announcement[] => [announcement('scanner_batch.completed', { kind: 'batch', batchId }, at)];
