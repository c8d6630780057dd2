import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { ScannerRecord } from '../../../domain/scanners/model.js';

/** A scanner's head: its current version. */
export const scannerEntity = defineEntity({
  name: 'scanner',
  keys: { PK: ACCOUNT_PARTITION, SK: 'SCN#{scannerId}' },
  toItem: (accountId: string, scanner: ScannerRecord) => ({ fields: { accountId, ...scanner }, attributes: scanner }),
  toRecord: (attributes) => attributes as unknown as ScannerRecord,
});
