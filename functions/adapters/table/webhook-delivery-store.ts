import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryPage, type TableContext } from './query-page.js';
import { conditionalWrite, getRecord } from './operations.js';
import { dueIndexKey, webhookDeliveryEntity } from './entities/webhook-delivery.js';
import type { WebhookDeliveryRecord } from '../../domain/webhooks/model.js';
import type { DeliveryFilter, WebhookDeliveryStore } from '../../domain/webhooks/ports.js';

/** Only what the filter names; no filter keeps everything. */
function filterOf(filter: DeliveryFilter): ((delivery: WebhookDeliveryRecord) => boolean) | undefined {
  const { endpointId, eventType, status, eventId } = filter;
  if (endpointId === undefined && eventType === undefined && status === undefined && eventId === undefined) return undefined;
  return (d) =>
    (endpointId === undefined || d.endpointId === endpointId) &&
    (eventType === undefined || d.eventType === eventType) &&
    (status === undefined || d.status === status) &&
    (eventId === undefined || d.eventId === eventId);
}

/**
 * Deliveries in the table (DESIGN 10). Each is `ACCT#<a>` / `DLV#<delivery id>`, one item: the id
 * is derived from the event and the endpoint and ordered by event time (deliveryIdFor), so one
 * conditional Put makes a delivery once and the log lists newest first. While pending, a delivery
 * is also on GSI1 under `WEBHOOK#DUE` by due time, so the local host can resume every pending
 * delivery at start.
 */
export function dynamoWebhookDeliveryStore(table: TableContext): WebhookDeliveryStore {
  const { tableName } = table;
  const get = (accountId: string, deliveryId: string) => getRecord(table, webhookDeliveryEntity, { accountId, deliveryId });

  return {
    async createOnce(delivery) {
      // The id is derived from the event and the endpoint (deliveryIdFor): an existing item is this delivery, made before.
      const created = await conditionalWrite(
        table,
        new PutCommand({
          TableName: tableName,
          Item: webhookDeliveryEntity.item(delivery),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      if (created) return { created: true, delivery };
      const earlier = await get(delivery.accountId, delivery.deliveryId);
      if (!earlier) throw new Error(`Delivery ${delivery.deliveryId} exists and is missing`);
      return { created: false, delivery: earlier };
    },

    get,

    recordAttempt: (delivery, attempt, next, now) => {
      const due = dueIndexKey({ ...next, deliveryId: delivery.deliveryId });
      return conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: webhookDeliveryEntity.key(delivery),
          UpdateExpression: [
            `SET attempts = list_append(attempts, :attempt), #status = :status, nextAttemptAt = :next, updatedAt = :now${due ? ', GSI1PK = :gpk, GSI1SK = :gsk' : ''}`,
            `REMOVE manualRetry${due ? '' : ', GSI1PK, GSI1SK'}`,
          ].join(' '),
          // Read at this many attempts and still pending: a duplicate wake-up that lost the race records nothing.
          ConditionExpression: '#status = :pending AND size(attempts) = :count',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':attempt': [attempt],
            ':status': next.status,
            ':next': next.nextAttemptAt,
            ':now': now,
            ':pending': 'pending',
            ':count': delivery.attempts.length,
            ...(due ? { ':gpk': due.GSI1PK, ':gsk': due.GSI1SK } : {}),
          },
        }),
      );
    },

    reopen: (delivery, at) => {
      const due = dueIndexKey({ deliveryId: delivery.deliveryId, status: 'pending', nextAttemptAt: at })!;
      return conditionalWrite(
        table,
        new UpdateCommand({
          TableName: tableName,
          Key: webhookDeliveryEntity.key(delivery),
          UpdateExpression: 'SET #status = :pending, nextAttemptAt = :at, updatedAt = :at, manualRetry = :yes, GSI1PK = :gpk, GSI1SK = :gsk',
          ConditionExpression: '#status = :failed AND size(attempts) = :count',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':failed': 'failed',
            ':at': at,
            ':yes': true,
            ':count': delivery.attempts.length,
            ':gpk': due.GSI1PK,
            ':gsk': due.GSI1SK,
          },
        }),
      );
    },

    list: (accountId, filter, page) => {
      const keep = filterOf(filter);
      return queryPage(table, accountId, webhookDeliveryEntity.collection({ accountId }), page, webhookDeliveryEntity.record, keep ? { keep } : {});
    },

    async listDue(at, limit) {
      const result = await table.doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :due AND GSI1SK <= :to',
          ExpressionAttributeValues: { ':due': webhookDeliveryEntity.indexCollection({}).PK, ':to': `${at}#\uffff` },
          ScanIndexForward: true,
          Limit: limit,
        }),
      );
      return (result.Items ?? []).map(webhookDeliveryEntity.record);
    },
  };
}
