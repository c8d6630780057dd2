import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';

/**
 * How many webhook endpoints the account has (written by update expressions): the per-account
 * limit is checked against it in the creating transaction.
 */
export const webhookEndpointCountEntity = defineEntity({ name: 'webhook_endpoint_count', keys: { PK: ACCOUNT_PARTITION, SK: 'WHECOUNT' } });
