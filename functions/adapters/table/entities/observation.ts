import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION, type Collection } from '../keys.js';
import type { AnalysisRef } from '../../../domain/runs/ports.js';
import type { ObservationRecord } from '../../../domain/runs/model.js';

/**
 * A run's observations in rank order, read back strongly consistent right after completion, and
 * on GSI1 every observation of the account by time-ordered id.
 */
export const observationEntity = defineEntity({
  name: 'observation',
  keys: { PK: ACCOUNT_PARTITION, SK: 'RUNOBS#{runId}#{rank:4}', GSI1PK: `${ACCOUNT_PARTITION}#OBS`, GSI1SK: '{observation_id}' },
  toItem: (ref: Pick<AnalysisRef, 'accountId' | 'runId'>, observation: ObservationRecord, rank: number) => ({
    fields: { ...observation, ...ref, rank },
    attributes: observation,
  }),
  toRecord: (attributes) => attributes as unknown as ObservationRecord,
});

/** Every observation of the account on GSI1 (whose sort key is the id itself); `fromId` narrows to ids at or after it. */
export const accountObservationsFrom = (accountId: string, fromId?: string): Collection => ({
  ...observationEntity.indexCollection({ accountId }),
  prefix: 'obs_',
  ...(fromId ? { from: fromId } : {}),
});
