import { queryPage, type TableContext } from './query-page.js';
import { getRecord, transact } from './operations.js';
import { scannerEntity } from './entities/scanner.js';
import { scannerVersionEntity } from './entities/scanner-version.js';
import type { ScannerRecord } from '../../domain/scanners/model.js';
import type { ScannerStore } from '../../domain/scanners/ports.js';

export function dynamoScannerStore(table: TableContext): ScannerStore {
  const { tableName } = table;
  const snapshotPut = (accountId: string, scanner: ScannerRecord) => ({
    Put: {
      TableName: tableName,
      Item: scannerVersionEntity.item(accountId, scanner),
      // Snapshots are immutable: a version is written once and never again.
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });
  const headPut = (
    accountId: string,
    scanner: ScannerRecord,
    condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> },
  ) => ({
    Put: { TableName: tableName, Item: scannerEntity.item(accountId, scanner), ...condition },
  });

  return {
    async create(accountId, scanner) {
      const outcome = await transact(table, [
        headPut(accountId, scanner, { ConditionExpression: 'attribute_not_exists(PK)' }),
        snapshotPut(accountId, scanner),
      ]);
      if (!outcome.ok) throw new Error(`Scanner ${scanner.scannerId} exists already`);
    },

    get: (accountId, scannerId) => getRecord(table, scannerEntity, { accountId, scannerId }),

    getVersion: (accountId, scannerId, version) => getRecord(table, scannerVersionEntity, { accountId, scannerId, version }),

    async putNextVersion(accountId, next) {
      // The head moves only from the version this one follows: a concurrent PATCH loses cleanly.
      const outcome = await transact(table, [
        headPut(accountId, next, { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': next.version - 1 } }),
        snapshotPut(accountId, next),
      ]);
      return outcome.ok;
    },

    list: (accountId, page) => queryPage(table, accountId, scannerEntity.collection({ accountId }), page, scannerEntity.record),

    listVersions: (accountId, scannerId, page) =>
      queryPage(table, accountId, scannerVersionEntity.collection({ accountId, scannerId }), page, scannerVersionEntity.record),
  };
}
