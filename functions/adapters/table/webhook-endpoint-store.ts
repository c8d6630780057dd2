import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, transact } from './operations.js';
import { webhookEndpointEntity } from './entities/webhook-endpoint.js';
import { webhookEndpointCountEntity } from './entities/webhook-endpoint-count.js';
import type { WebhookEndpointStore } from '../../domain/webhooks/ports.js';

/**
 * Webhook endpoints (`ACCT#<a>` / `WHE#<id>`) and their count per account (`ACCT#<a>` /
 * `WHECOUNT`), which creation and deletion move in the same transaction as the endpoint, so
 * the per-account limit holds under concurrent creations.
 */
export function dynamoWebhookEndpointStore(table: TableContext): WebhookEndpointStore {
  const { tableName } = table;

  return {
    async create(endpoint, maxPerAccount) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: webhookEndpointCountEntity.key(endpoint),
            UpdateExpression: 'SET entity = :entity ADD endpointCount :one',
            ...(maxPerAccount === undefined ? {} : { ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max' }),
            ExpressionAttributeValues: {
              ':entity': webhookEndpointCountEntity.name,
              ':one': 1,
              ...(maxPerAccount === undefined ? {} : { ':max': maxPerAccount }),
            },
          },
        },
        { Put: { TableName: tableName, Item: webhookEndpointEntity.item(endpoint), ConditionExpression: 'attribute_not_exists(PK)' } },
      ]);
      if (outcome.ok) return true;
      if (outcome.failedIndex === 0) return false;
      throw new Error(`Webhook endpoint ${endpoint.endpointId} exists already`);
    },

    get: (accountId, endpointId) => getRecord(table, webhookEndpointEntity, { accountId, endpointId }),

    list: (accountId, page) => queryPage(table, accountId, webhookEndpointEntity.collection({ accountId }), page, webhookEndpointEntity.record),

    // No cursors: the fan-out reads every endpoint and is not granted the cursor key.
    listAll: (accountId) => queryAll(table, webhookEndpointEntity.collection({ accountId }), webhookEndpointEntity.record),

    replace: (endpoint, readUpdatedAt) =>
      conditionalWrite(
        table,
        new PutCommand({
          TableName: tableName,
          Item: webhookEndpointEntity.item(endpoint),
          ...(readUpdatedAt === undefined
            ? { ConditionExpression: 'attribute_exists(PK)' }
            : {
                ConditionExpression: 'attribute_exists(PK) AND updatedAt = :read',
                ExpressionAttributeValues: { ':read': readUpdatedAt },
              }),
        }),
      ),

    async delete(accountId, endpointId) {
      const outcome = await transact(table, [
        { Delete: { TableName: tableName, Key: webhookEndpointEntity.key({ accountId, endpointId }), ConditionExpression: 'attribute_exists(PK)' } },
        {
          Update: {
            TableName: tableName,
            Key: webhookEndpointCountEntity.key({ accountId }),
            UpdateExpression: 'ADD endpointCount :minusOne',
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ]);
      return outcome.ok;
    },
  };
}
