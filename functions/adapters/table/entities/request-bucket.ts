import { defineEntity } from '../entity.js';
import { ACCOUNT_PARTITION } from '../keys.js';

/**
 * The account's request bucket (functions/domain/accounts/request-limits.ts), written by update expressions
 * only: apart from the account item, whose wallet transactions it must not contend with.
 */
export const requestBucketEntity = defineEntity({ name: 'request_bucket', keys: { PK: ACCOUNT_PARTITION, SK: 'REQUESTBUCKET' } });
