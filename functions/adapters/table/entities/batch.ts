import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { BatchRecord } from '../../../domain/batches/model.js';

export const batchEntity = defineEntity({
  name: 'batch',
  keys: { PK: ACCOUNT_PARTITION, SK: 'BAT#{batchId}' },
  toItem: (batch: BatchRecord) => ({ fields: batch, attributes: batch }),
  toRecord: (attributes) => attributes as unknown as BatchRecord,
});
