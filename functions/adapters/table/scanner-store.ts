import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { collections, keys } from './keys.js';
import { queryPage, stripKeys, type TableContext } from './query-page.js';
import type { ScannerRecord, ScannerStore } from '../../domain/ports.js';

const toScanner = (item: Record<string, unknown>): ScannerRecord => stripKeys(item) as unknown as ScannerRecord;

export function dynamoScannerStore(table: TableContext): ScannerStore {
  const { doc, tableName } = table;
  const get = async (key: { PK: string; SK: string }) => {
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    return item ? toScanner(item) : undefined;
  };
  const snapshotPut = (accountId: string, scanner: ScannerRecord) => ({
    Put: {
      TableName: tableName,
      Item: { ...keys.scannerVersion(accountId, scanner.scannerId, scanner.version), entity: 'scanner_version', ...scanner },
      // Snapshots are immutable: a version is written once and never again.
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  });

  return {
    async create(accountId, scanner) {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.scanner(accountId, scanner.scannerId), entity: 'scanner', ...scanner },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            snapshotPut(accountId, scanner),
          ],
        }),
      );
    },

    get: (accountId, scannerId) => get(keys.scanner(accountId, scannerId)),

    getVersion: (accountId, scannerId, version) => get(keys.scannerVersion(accountId, scannerId, version)),

    async putNextVersion(accountId, next) {
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.scanner(accountId, next.scannerId), entity: 'scanner', ...next },
                  ConditionExpression: 'version = :previous',
                  ExpressionAttributeValues: { ':previous': next.version - 1 },
                },
              },
              snapshotPut(accountId, next),
            ],
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof TransactionCanceledException) return false;
        throw error;
      }
    },

    list: (accountId, page) => queryPage(table, accountId, collections.scanners(accountId), page, toScanner),

    listVersions: (accountId, scannerId, page) =>
      queryPage(table, accountId, collections.scannerVersions(accountId, scannerId), page, toScanner),
  };
}
