import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { AnalysisRef } from '../../../domain/runs/ports.js';
import type { MomentRecord } from '../../../domain/runs/model.js';

/** An analysis's moments in rank order. */
export const momentEntity = defineEntity({
  name: 'moment',
  keys: { PK: ACCOUNT_PARTITION, SK: 'MOM#{analysisId}#{rank:4}' },
  toItem: (ref: Pick<AnalysisRef, 'accountId' | 'analysisId'>, moment: MomentRecord) => ({ fields: { ...moment, ...ref }, attributes: moment }),
  toRecord: (attributes) => attributes as unknown as MomentRecord,
});
