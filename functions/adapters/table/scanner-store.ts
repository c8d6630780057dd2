import { collections, keys } from './keys.js';
import { queryPage, stripKeys, type TableContext } from './query-page.js';
import { getRecord, transact } from './operations.js';
import type { ScannerRecord } from '../../domain/scanners/model.js';
import type { ScannerStore } from '../../domain/scanners/ports.js';

const toScanner = (item: Record<string, unknown>): ScannerRecord => stripKeys(item) as unknown as ScannerRecord;

export function dynamoScannerStore(table: TableContext): ScannerStore {
  const { tableName } = table;
  const snapshotPut = (accountId: string, scanner: ScannerRecord) => ({
    Put: {
      TableName: tableName,
      Item: { ...keys.scannerVersion(accountId, scanner.scannerId, scanner.version), entity: 'scanner_version', ...scanner },
      // Snapshots are immutable: a version is written once and never again.
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });
  const headPut = (accountId: string, scanner: ScannerRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }) => ({
    Put: { TableName: tableName, Item: { ...keys.scanner(accountId, scanner.scannerId), entity: 'scanner', ...scanner }, ...condition },
  });

  return {
    async create(accountId, scanner) {
      const outcome = await transact(table, [headPut(accountId, scanner, { ConditionExpression: 'attribute_not_exists(PK)' }), snapshotPut(accountId, scanner)]);
      if (!outcome.ok) throw new Error(`Scanner ${scanner.scannerId} exists already`);
    },

    get: (accountId, scannerId) => getRecord<ScannerRecord>(table, keys.scanner(accountId, scannerId)),

    getVersion: (accountId, scannerId, version) => getRecord<ScannerRecord>(table, keys.scannerVersion(accountId, scannerId, version)),

    async putNextVersion(accountId, next) {
      // The head moves only from the version this one follows: a concurrent PATCH loses cleanly.
      const outcome = await transact(table, [
        headPut(accountId, next, { ConditionExpression: 'version = :previous', ExpressionAttributeValues: { ':previous': next.version - 1 } }),
        snapshotPut(accountId, next),
      ]);
      return outcome.ok;
    },

    list: (accountId, page) => queryPage(table, accountId, collections.scanners(accountId), page, toScanner),

    listVersions: (accountId, scannerId, page) =>
      queryPage(table, accountId, collections.scannerVersions(accountId, scannerId), page, toScanner),
  };
}
