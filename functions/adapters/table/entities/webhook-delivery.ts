import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import { DELIVERY_LOG_RETENTION_DAYS } from '../../../domain/webhooks/deliveries.js';
import type { WebhookDeliveryRecord } from '../../../domain/webhooks/model.js';

const DAY_SECONDS = 86_400;

/** While pending, a delivery is on GSI1 by due time (the local sender's sweep); terminal, it is off. */
const dueFields = ({ deliveryId, status, nextAttemptAt }: Pick<WebhookDeliveryRecord, 'deliveryId' | 'status' | 'nextAttemptAt'>) => ({
  deliveryId,
  nextAttemptAt: status === 'pending' ? nextAttemptAt : null,
});

/**
 * A webhook delivery (ids derive from the event and endpoint, ordered by event time: the log reads
 * newest first), kept for the delivery log's retention after it was created.
 */
export const webhookDeliveryEntity = defineEntity({
  name: 'webhook_delivery',
  keys: { PK: ACCOUNT_PARTITION, SK: 'DLV#{deliveryId}', GSI1PK: 'WEBHOOK#DUE', GSI1SK: '{nextAttemptAt}#{deliveryId}' },
  toItem: (delivery: WebhookDeliveryRecord) => ({
    fields: { ...delivery, ...dueFields(delivery) },
    attributes: delivery,
    expiresAt: Math.floor(Date.parse(delivery.createdAt) / 1000) + DELIVERY_LOG_RETENTION_DAYS * DAY_SECONDS,
  }),
  toRecord: (attributes) => attributes as unknown as WebhookDeliveryRecord,
});

/** GSI1's keys of a delivery in this state; undefined once it is not pending. */
export const dueIndexKey = (delivery: Pick<WebhookDeliveryRecord, 'deliveryId' | 'status' | 'nextAttemptAt'>) =>
  webhookDeliveryEntity.indexKey(dueFields(delivery));
