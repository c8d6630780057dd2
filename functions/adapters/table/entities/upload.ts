import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { UploadRecord } from '../../../domain/uploads/model.js';

export const uploadEntity = defineEntity({
  name: 'upload',
  keys: { PK: ACCOUNT_PARTITION, SK: 'UPL#{uploadId}' },
  toItem: (accountId: string, upload: UploadRecord, expiresAt: number) => ({ fields: { accountId, ...upload }, attributes: upload, expiresAt }),
  toRecord: (attributes) => attributes as unknown as UploadRecord,
});
