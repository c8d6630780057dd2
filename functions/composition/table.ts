import { config } from '../config.js';
import { createDynamoDbClients } from '../adapters/dynamodb-clients.js';
import { CursorCodec } from '../adapters/table/cursor.js';
import type { TableContext } from '../adapters/table/query-page.js';
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
