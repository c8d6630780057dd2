import { config } from '../config.js';
import { AccountScopedPersistenceLayer } from '../adapters/idempotency-store.js';
import { createIdempotentExecutor } from '../http/idempotency.js';
import { lazy } from '../shared/memo.js';
import { dynamoDbClients } from './table.js';

/** Powertools idempotency on the service table: only the routes that accept Idempotency-Key load it. */
export const idempotent = lazy(() =>
  createIdempotentExecutor(new AccountScopedPersistenceLayer(dynamoDbClients().dynamo, config().TABLE_NAME), config().IDEMPOTENCY_TTL_SECONDS),
);
