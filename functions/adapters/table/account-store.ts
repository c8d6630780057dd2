import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { keys } from './keys.js';
import { stripKeys, type TableContext } from './query-page.js';
import type { Account, AccountStore, ApiKeyRecord, LedgerEntry } from '../../domain/ports.js';

const toAccount = (item: Record<string, unknown>): Account => {
  const record = stripKeys(item) as Omit<Account, 'trustedHosts'> & { trustedHosts?: Set<string> };
  // DynamoDB cannot store an empty set, so an account without hosts has no attribute.
  return { ...record, trustedHosts: [...(record.trustedHosts ?? [])].sort() };
};

const ledgerPut = (table: TableContext, accountId: string, entry: LedgerEntry) => ({
  Put: {
    TableName: table.tableName,
    Item: { ...keys.ledgerEntry(accountId, entry.entryId), entity: 'ledger', accountId, ...entry },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

export function dynamoAccountStore(table: TableContext): AccountStore {
  const { doc, tableName } = table;
  // Strongly consistent: balances and revocations must be read as just written.
  const get = async (key: { PK: string; SK: string }) => (await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  return {
    async findApiKey(keyHash) {
      const item = await get(keys.apiKey(keyHash));
      return item ? (stripKeys(item) as unknown as ApiKeyRecord) : undefined;
    },

    async getAccount(accountId) {
      const item = await get(keys.account(accountId));
      return item ? toAccount(item) : undefined;
    },

    async createAccount(account, key, opening) {
      const { trustedHosts: _none, ...record } = account;
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.account(account.accountId), entity: 'account', ...record },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.apiKey(key.keyHash), entity: 'api_key', ...key },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            ledgerPut(table, account.accountId, opening),
          ],
        }),
      );
    },

    async addApiKey(key) {
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.apiKey(key.keyHash), entity: 'api_key', ...key },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    async revokeApiKey(keyHash) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.apiKey(keyHash),
            UpdateExpression: 'SET revoked = :true',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':true': true },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async addCredits(accountId, entry) {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: keys.account(accountId),
                UpdateExpression: 'ADD creditsBalance :credits SET updatedAt = :now',
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeValues: { ':credits': entry.credits, ':now': entry.createdAt },
              },
            },
            ledgerPut(table, accountId, entry),
          ],
        }),
      );
      const account = await get(keys.account(accountId));
      return Number(account?.creditsBalance);
    },

    async addTrustedHost(accountId, hostname) {
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.account(accountId),
          UpdateExpression: 'ADD trustedHosts :host SET updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':host': new Set([hostname]), ':now': new Date().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toAccount(result.Attributes ?? {}).trustedHosts;
    },
  };
}
