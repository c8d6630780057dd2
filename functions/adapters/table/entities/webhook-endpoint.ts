import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';
import type { WebhookEndpointRecord } from '../../../domain/webhooks/model.js';

/** A webhook endpoint (ids are time-ordered: the collection reads newest first). */
export const webhookEndpointEntity = defineEntity({
  name: 'webhook_endpoint',
  keys: { PK: ACCOUNT_PARTITION, SK: 'WHE#{endpointId}' },
  toItem: (endpoint: WebhookEndpointRecord) => ({ fields: endpoint, attributes: endpoint }),
  toRecord: (attributes) => attributes as unknown as WebhookEndpointRecord,
});
