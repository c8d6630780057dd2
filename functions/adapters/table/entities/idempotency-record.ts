import { ACCOUNT_PARTITION, tableKeys } from '../keys.js';

/**
 * Idempotency records of one account (written by Powertools, with no entity tag): one key space
 * per account across endpoints (as Stripe).
 */
export const idempotencyRecordKeys = tableKeys({ PK: ACCOUNT_PARTITION, SK: 'IDEM#{scopedKey}' });
