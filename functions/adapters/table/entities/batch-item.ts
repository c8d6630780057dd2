import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { BatchItemRecord } from '../../../domain/batches/model.js';

/** A batch's items in request order: the numeric item cursor is an offset into them. */
export const batchItemEntity = defineEntity({
  name: 'batch_item',
  keys: { PK: ACCOUNT_PARTITION, SK: 'BATITEM#{batchId}#{index:4}' },
  toItem: (item: BatchItemRecord) => ({ fields: item, attributes: item }),
  toRecord: (attributes) => attributes as unknown as BatchItemRecord,
});
