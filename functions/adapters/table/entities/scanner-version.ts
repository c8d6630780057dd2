import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { ScannerRecord } from '../../../domain/scanners/model.js';

/** An immutable snapshot of one version of a scanner, in version order. */
export const scannerVersionEntity = defineEntity({
  name: 'scanner_version',
  keys: { PK: ACCOUNT_PARTITION, SK: 'SCNV#{scannerId}#{version:10}' },
  toItem: (accountId: string, scanner: ScannerRecord) => ({ fields: { accountId, ...scanner }, attributes: scanner }),
  toRecord: (attributes) => attributes as unknown as ScannerRecord,
});
