import type { Server } from 'node:http';

/** How long the local host's servers keep an idle keep-alive connection open. */
const IDLE_CONNECTION_MS = 65_000;

/**
 * Node closes an idle connection 5 s after its last answer by default, and a client, told so,
 * reuses it for 3 s. A host whose event loop stalls past that (units analysing in-process on a
 * busy machine) runs the expired timer before it reads a request already sent on the connection,
 * and resets it under the client (ECONNRESET). Kept a minute, an idle connection is always the
 * client's to drop (test/unit/local/server-keep-alive.test.ts).
 */
export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
}
