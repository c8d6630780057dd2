import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, ledgerPut, transact } from './operations.js';
import { accountEntity } from './entities/account.js';
import { apiKeyEntity } from './entities/api-key.js';
import { ledgerEntryEntity } from './entities/ledger-entry.js';
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

    revokeApiKey: (keyHash, revokedAt) =>
      conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: apiKeyEntity.key({ keyHash }),
          // A key revoked earlier keeps the time it was revoked.
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':now': revokedAt },
        }),
      ),

    listApiKeys: async (accountId) => (await queryAll(table, apiKeyEntity.indexCollection({ accountId }), apiKeyEntity.record)).reverse(),

    async revokeApiKeyById(accountId, keyId, revokedAt) {
      const [key] = await queryAll(table, apiKeyEntity.indexCollection({ accountId, keyId }), apiKeyEntity.record);
      if (!key) return undefined;
      try {
        const result = await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: apiKeyEntity.key(key),
            UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
            // The item read from the index is the account's; the condition keeps it so against any change since.
            ConditionExpression: 'accountId = :account',
            ExpressionAttributeValues: { ':now': revokedAt, ':account': accountId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return apiKeyEntity.record(result.Attributes ?? {});
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async recordApiKeyUse(keyHash, at, notAfter) {
      // Refused when another request recorded a use within the minute: that is the answer, not a failure.
      await conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: apiKeyEntity.key({ keyHash }),
          UpdateExpression: 'SET lastUsedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt <= :notAfter)',
          ExpressionAttributeValues: { ':at': at, ':notAfter': notAfter },
        }),
      );
    },

    listLedger: (accountId, page) => queryPage(table, accountId, ledgerEntryEntity.collection({ accountId }), page, ledgerEntryEntity.record),

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
