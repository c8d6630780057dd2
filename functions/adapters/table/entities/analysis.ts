import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION, type Collection } from '../keys.js';
import type { AnalysisRecord } from '../../../domain/runs/model.js';

/** Analyses of both kinds, by time-ordered id. */
export const analysisEntity = defineEntity({
  name: 'analysis',
  keys: { PK: ACCOUNT_PARTITION, SK: 'ANA#{analysisId}' },
  toItem: (analysis: AnalysisRecord) => ({ fields: analysis, attributes: analysis }),
  toRecord: (attributes) => attributes as unknown as AnalysisRecord,
});

/** The account's analyses; `fromId` narrows to ids at or after it. */
export const analysesFrom = (accountId: string, fromId?: string): Collection => ({
  ...analysisEntity.collection({ accountId }),
  ...(fromId ? { from: analysisEntity.key({ accountId, analysisId: fromId }).SK } : {}),
});
