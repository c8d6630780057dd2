import { config, type Config } from './config.js';
import { createAwsClients } from './adapters/aws-clients.js';
import { resolveCursorSecret } from './adapters/cursor-secret.js';
import { CursorCodec } from './adapters/table/cursor.js';
import { dynamoAccountStore } from './adapters/table/account-store.js';
import { dynamoScannerStore } from './adapters/table/scanner-store.js';
import { AccountScopedPersistenceLayer } from './adapters/idempotency-store.js';
import { createIdempotentExecutor, type IdempotentExecutor } from './http/idempotency.js';
import type { AccountStore, ScannerStore } from './domain/ports.js';

/** Everything a handler may call, built once per process (Lambda cold start or local host). */
export interface Services {
  config: Config;
  accounts: AccountStore;
  scanners: ScannerStore;
  idempotent: IdempotentExecutor;
}

let services: Promise<Services> | undefined;

export function getServices(): Promise<Services> {
  services ??= buildServices(config()).catch((error: unknown) => {
    services = undefined; // a failed cold start (e.g. the secret fetch) is retried by the next request
    throw error;
  });
  return services;
}

async function buildServices(cfg: Config): Promise<Services> {
  const clients = createAwsClients(cfg);
  const table = { doc: clients.doc, tableName: cfg.TABLE_NAME, cursors: new CursorCodec(await resolveCursorSecret(cfg, clients.secrets)) };
  return {
    config: cfg,
    accounts: dynamoAccountStore(table),
    scanners: dynamoScannerStore(table),
    idempotent: createIdempotentExecutor(new AccountScopedPersistenceLayer(clients.dynamo, cfg.TABLE_NAME), cfg.IDEMPOTENCY_TTL_SECONDS),
  };
}
