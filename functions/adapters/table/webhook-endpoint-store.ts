import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { collections, keys } from './keys.js';
import { queryAll, queryPage, stripKeys, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord, transact } from './operations.js';
import type { WebhookEndpointRecord } from '../../domain/webhooks/model.js';
import type { WebhookEndpointStore } from '../../domain/webhooks/ports.js';

const toEndpoint = (item: Record<string, unknown>): WebhookEndpointRecord => stripKeys(item) as unknown as WebhookEndpointRecord;

/**
 * Webhook endpoints (`ACCT#<a>` / `WHE#<id>`) and their count per account (`ACCT#<a>` /
 * `WHECOUNT`), which creation and deletion move in the same transaction as the endpoint, so
 * the per-account limit holds under concurrent creations.
 */
export function dynamoWebhookEndpointStore(table: TableContext): WebhookEndpointStore {
  const { tableName } = table;
  const item = (endpoint: WebhookEndpointRecord) => ({ ...keys.webhookEndpoint(endpoint.accountId, endpoint.endpointId), entity: 'webhook_endpoint', ...endpoint });

  return {
    async create(endpoint, maxPerAccount) {
      const outcome = await transact(table, [
        {
          Update: {
            TableName: tableName,
            Key: keys.webhookEndpointCount(endpoint.accountId),
            UpdateExpression: 'SET entity = :entity ADD endpointCount :one',
            ...(maxPerAccount === undefined ? {} : { ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max' }),
            ExpressionAttributeValues: { ':entity': 'webhook_endpoint_count', ':one': 1, ...(maxPerAccount === undefined ? {} : { ':max': maxPerAccount }) },
          },
        },
        { Put: { TableName: tableName, Item: item(endpoint), ConditionExpression: 'attribute_not_exists(PK)' } },
      ]);
      if (outcome.ok) return true;
      if (outcome.failedIndex === 0) return false;
      throw new Error(`Webhook endpoint ${endpoint.endpointId} exists already`);
    },

    async get(accountId, endpointId) {
      const record = await getRecord<Record<string, unknown>>(table, keys.webhookEndpoint(accountId, endpointId));
      return record ? toEndpoint(record) : undefined;
    },

    list: (accountId, page) => queryPage(table, accountId, collections.webhookEndpoints(accountId), page, toEndpoint),

    // No cursors: the fan-out reads every endpoint and is not granted the cursor key.
    listAll: (accountId) => queryAll(table, collections.webhookEndpoints(accountId), toEndpoint),

    replace: (endpoint, readUpdatedAt) =>
      conditionalWrite(
        table,
        new PutCommand({
          TableName: tableName,
          Item: item(endpoint),
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
        { Delete: { TableName: tableName, Key: keys.webhookEndpoint(accountId, endpointId), ConditionExpression: 'attribute_exists(PK)' } },
        {
          Update: {
            TableName: tableName,
            Key: keys.webhookEndpointCount(accountId),
            UpdateExpression: 'ADD endpointCount :minusOne',
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ]);
      return outcome.ok;
    },
  };
}
