import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.js';
import { stripKeys, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, ledgerPut, transact } from './operations.js';
import type { Account, ApiKeyRecord } from '../../domain/accounts/model.js';
import type { AccountStore } from '../../domain/accounts/ports.js';

const toAccount = (item: Record<string, unknown>): Account => {
  const record = stripKeys(item) as Omit<Account, 'trustedHosts'> & { trustedHosts?: Set<string> };
  // DynamoDB cannot store an empty set, so an account without hosts has no attribute.
  return { ...record, trustedHosts: [...(record.trustedHosts ?? [])].sort() };
};

export function dynamoAccountStore(table: TableContext): AccountStore {
  const { doc, tableName } = table;

  return {
    findApiKey: (keyHash) => getRecord<ApiKeyRecord>(table, keys.apiKey(keyHash)),

    async getAccount(accountId) {
      const item = await getRecord<Record<string, unknown>>(table, keys.account(accountId));
      return item ? toAccount(item) : undefined;
    },

    async createAccount(account, key, opening) {
      const { trustedHosts: _none, ...record } = account;
      const outcome = await transact(table, [
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
      ]);
      if (!outcome.ok) throw new Error(`Account ${account.accountId} or its key exists already`);
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

    revokeApiKey: (keyHash) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: keys.apiKey(keyHash),
          UpdateExpression: 'SET revoked = :true',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':true': true },
        }),
      ),

    async addCredits(accountId, entry) {
      const outcome = await transact(table, [
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
      ]);
      if (!outcome.ok) throw new Error(`No account ${accountId}`);
      const account = await getRecord<{ creditsBalance: number }>(table, keys.account(accountId));
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

    setEventDelivery: (accountId, enabled) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: keys.account(accountId),
          // Stored only while off, so every account created before the switch existed reads as on.
          UpdateExpression: enabled ? 'REMOVE eventDeliveryDisabled SET updatedAt = :now' : 'SET eventDeliveryDisabled = :true, updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':now': new Date().toISOString(), ...(enabled ? {} : { ':true': true }) },
        }),
      ),

    setLimitOverrides(accountId, overrides) {
      // Each limit by its own path: the contracted overrides the account already has stay.
      const names = Object.keys(overrides);
      return conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: keys.account(accountId),
          UpdateExpression: `SET ${names.map((_, i) => `limitOverrides.#l${i} = :l${i}`).join(', ')}, updatedAt = :now`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#l${i}`, name])),
          ExpressionAttributeValues: { ...Object.fromEntries(names.map((name, i) => [`:l${i}`, overrides[name as keyof typeof overrides]])), ':now': new Date().toISOString() },
        }),
      );
    },
  };
}
