import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { AnalysisRef, SlotQueueEntry } from '../../../domain/runs/ports.js';

/** A run waiting for a concurrency slot; run ids are time-ordered, so the queue reads oldest first. */
export const slotQueueEntryEntity = defineEntity({
  name: 'slot_queue_entry',
  keys: { PK: ACCOUNT_PARTITION, SK: 'SLOTQ#{runId}' },
  toItem: ({ accountId, runId, analysisId }: AnalysisRef, taskToken?: string) => ({
    fields: { accountId, runId },
    attributes: { accountId, runId, analysisId, ...(taskToken === undefined ? {} : { taskToken }) },
  }),
  toRecord: (attributes): SlotQueueEntry => {
    const { runId, analysisId, taskToken } = attributes as Partial<SlotQueueEntry> & Pick<SlotQueueEntry, 'runId' | 'analysisId'>;
    return { runId, analysisId, taskToken: taskToken ?? null };
  },
});
