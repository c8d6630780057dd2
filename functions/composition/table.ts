import { config } from '../config.js';
import { createDynamoDbClients } from '../adapters/dynamodb-clients.js';
import { CursorCodec } from '../adapters/table/cursor.js';
import type { TableContext } from '../adapters/table/query-page.js';
import { dynamoAccountStore } from '../adapters/table/account-store.js';
import { cachedAccountReads } from '../adapters/cached-account-reads.js';
import { dynamoRequestBucketStore } from '../adapters/table/request-bucket-store.js';
import { lazy } from '../shared/memo.js';
import { currentHost } from './host.js';

/** The service table's clients, built once per process. */
export const dynamoDbClients = lazy(() => createDynamoDbClients(config()));

/** What every table adapter takes; the cursor key is read only when a list first pages. */
export const table = lazy(
  (): TableContext => ({
    doc: dynamoDbClients().doc,
    tableName: config().TABLE_NAME,
    // The host caches the key; asking it each time lets the local host tell each unit's read apart.
    cursors: async () => new CursorCodec(await currentHost().cursorSecret()),
  }),
);

export const accounts = lazy(() => dynamoAccountStore(table()));

/** The authorizer's key and account lookups, answered from a per-process cache for API_KEY_CACHE_SECONDS. */
export const accountReads = lazy(() => cachedAccountReads(accounts(), config().API_KEY_CACHE_SECONDS * 1000));

/** The accounts' request buckets (the authorizer takes a token per request). */
export const requestBuckets = lazy(() => dynamoRequestBucketStore(table()));
