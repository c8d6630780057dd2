import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './query-page.js';
import { conditionalWrite, getRecord, ledgerPut, transact } from './operations.js';
import { accountEntity } from './entities/account.js';
import { apiKeyEntity } from './entities/api-key.js';
import type { AccountStore } from '../../domain/accounts/ports.js';

export function dynamoAccountStore(table: TableContext): AccountStore {
  const { doc, tableName } = table;

  return {
    findApiKey: (keyHash) => getRecord(table, apiKeyEntity, { keyHash }),

    getAccount: (accountId) => getRecord(table, accountEntity, { accountId }),

    async createAccount(account, key, opening) {
      const outcome = await transact(table, [
        {
          Put: {
            TableName: tableName,
            Item: accountEntity.item(account),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: apiKeyEntity.item(key),
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
          Item: apiKeyEntity.item(key),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },

    revokeApiKey: (keyHash) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: apiKeyEntity.key({ keyHash }),
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
            Key: accountEntity.key({ accountId }),
            UpdateExpression: 'ADD creditsBalance :credits SET updatedAt = :now',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':credits': entry.credits, ':now': entry.createdAt },
          },
        },
        ledgerPut(table, accountId, entry),
      ]);
      if (!outcome.ok) throw new Error(`No account ${accountId}`);
      const account = await getRecord(table, accountEntity, { accountId });
      return Number(account?.creditsBalance);
    },

    async addTrustedHost(accountId, hostname) {
      const result = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: accountEntity.key({ accountId }),
          UpdateExpression: 'ADD trustedHosts :host SET updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':host': new Set([hostname]), ':now': new Date().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return accountEntity.record(result.Attributes ?? {}).trustedHosts;
    },

    setEventDelivery: (accountId, enabled) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: accountEntity.key({ accountId }),
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
          Key: accountEntity.key({ accountId }),
          UpdateExpression: `SET ${names.map((_, i) => `limitOverrides.#l${i} = :l${i}`).join(', ')}, updatedAt = :now`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#l${i}`, name])),
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((name, i) => [`:l${i}`, overrides[name as keyof typeof overrides]])),
            ':now': new Date().toISOString(),
          },
        }),
      );
    },
  };
}
