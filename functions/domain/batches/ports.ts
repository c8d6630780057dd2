import type { Announcement } from '../events/model.js';
import type { Page, PageRequest } from '../pages.js';
import type { TerminalError, BatchItemRef } from '../runs/model.js';
import type { BatchItemRecord, BatchRecord, ItemTransition } from './model.js';

export interface BatchRef {
  accountId: string;
  batchId: string;
}

/** What an item transition may record besides the new state. */
export interface ItemChanges {
  runId?: string;
  analysisId?: string;
  error?: TerminalError;
}

export interface BatchStore {
  /** Items first, then the batch record: a batch exists (and is listed) once its record does. */
  create(batch: BatchRecord, items: BatchItemRecord[]): Promise<void>;
  get(accountId: string, batchId: string): Promise<BatchRecord | undefined>;
  list(accountId: string, page: PageRequest): Promise<Page<BatchRecord>>;
  getItem(ref: BatchItemRef): Promise<BatchItemRecord | undefined>;
  /** Items from position `offset`, in request order. */
  listItems(accountId: string, batchId: string, offset: number, limit: number): Promise<BatchItemRecord[]>;
  /** One transition of `itemTransitions`, with the batch's counters, in one transaction; false when the item is no longer in a state it moves from. */
  transition(ref: BatchItemRef, transition: ItemTransition, changes: ItemChanges, now: string): Promise<boolean>;
  /** Marks the batch canceling; false when it is already settled (completed_at set). */
  requestCancel(ref: BatchRef, now: string): Promise<boolean>;
  /** Puts the waiting workflow's token on the item; false when its run has already ended. */
  awaitRun(ref: BatchItemRef, runId: string, taskToken: string): Promise<boolean>;
  /** Sets completed_at once, its event into the outbox with it; false when it was already set. */
  markCompleted(ref: BatchRef, now: string, announcements: readonly Announcement[]): Promise<boolean>;
}

/** Starts the batch workflow (Step Functions on AWS, aws-local-stepfunctions locally). */
export interface BatchWorkflowStarter {
  startBatch(ref: BatchRef): Promise<void>;
}
