/**
 * Helpers for the scanner-batch integration tests: the public shapes of a batch and its items
 * as an integrator reads them, submission with an Idempotency-Key, and polling to a terminal state.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiResponse, Client, MetadataValue } from './api.js';
import { sleep } from './runs.js';

export type ItemStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'canceled';
export type BatchStatus = 'queued' | 'processing' | 'canceling' | 'completed' | 'partial' | 'failed' | 'canceled';
export type Counters = Record<'total' | ItemStatus, number>;

export interface BatchItem {
  object: 'scanner_batch_item';
  client_id: string;
  scanner_id: string;
  scanner_version: number;
  upload_id: string;
  metadata: Record<string, MetadataValue>;
  status: ItemStatus;
  run_id: string | null;
  analysis_id: string | null;
  error: { code: string; message: string } | null;
}

export interface BatchSummary {
  object: 'scanner_batch';
  batch_id: string;
  status: BatchStatus;
  counters: Counters;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface Batch extends BatchSummary {
  items: BatchItem[];
  items_next_cursor: number | null;
}

export interface ItemInput {
  client_id: string;
  scanner_id: string;
  upload_id: string;
  metadata?: Record<string, MetadataValue>;
}

export const batchIdPattern = /^bat_[0-9a-f]{32}$/;
export const terminalBatchStates: readonly BatchStatus[] = ['completed', 'partial', 'failed', 'canceled'];

export const postBatch = (client: Client, items: ItemInput[], key: string = randomUUID()): Promise<ApiResponse<Batch>> =>
  client.post<Batch>('/v1/scanner-batches', { items }, { 'idempotency-key': key });

export async function submitBatch(client: Client, items: ItemInput[]): Promise<Batch> {
  const response = await postBatch(client, items);
  expect(response.status, response.text).toBe(202);
  return response.body;
}

/** Counters always add up to total. */
export function expectConsistent(batch: BatchSummary): void {
  const { total, queued, processing, completed, failed, canceled } = batch.counters;
  expect(queued + processing + completed + failed + canceled, JSON.stringify(batch.counters)).toBe(total);
}

export async function getBatch(client: Client, batchId: string, query = ''): Promise<Batch> {
  const response = await client.get<Batch>(`/v1/scanner-batches/${batchId}${query}`);
  expect(response.status, response.text).toBe(200);
  expectConsistent(response.body);
  return response.body;
}

/** Polls until the batch is terminal and settled (completed_at set), checking the counters on every read; `onPoll` sees each state. */
export async function waitForBatch(client: Client, batchId: string, timeoutMs = 120_000, onPoll?: (batch: Batch) => void): Promise<Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await getBatch(client, batchId);
    onPoll?.(batch);
    if (terminalBatchStates.includes(batch.status) && batch.completed_at) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${batch.status} after ${timeoutMs} ms: ${JSON.stringify(batch.counters)}`);
    await sleep(250);
  }
}
