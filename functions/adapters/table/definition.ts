/**
 * The single-table definition shared by CDK (infra/) and the local host, so both create the
 * same table. Attribute names here are the only place they are spelled.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** TTL attribute (epoch seconds): idempotency records, expired uploads, ledger retention. */
  timeToLiveAttribute: 'ttl',
  /** GSI1: account-wide views across parents (all observations of an account, newest first). */
  globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }] as readonly {
    indexName: string;
    partitionKey: string;
    sortKey: string;
  }[],
} as const;
