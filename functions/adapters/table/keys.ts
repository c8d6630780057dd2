/**
 * Every table key is built here and nowhere else. Every partition key starts with the account
 * (`ACCT#<id>`), so a lookup can never cross accounts; the exceptions are the API-key lookup,
 * which is how a request finds its account in the first place, and the deployment's admission
 * (DESIGN §6), which is shared by every account by design.
 */
export type TableKey = { PK: string; SK: string };

const account = (accountId: string): string => `ACCT#${accountId}`;
/** The deployment's admission (DESIGN §6): its admitted count and the accounts waiting for capacity. */
export const ADMISSION_PARTITION = 'ADMISSION';

/** Zero-padded so that lexical SK order is numeric version order. */
const versionSegment = (version: number): string => String(version).padStart(10, '0');
const rankSegment = (rank: number): string => String(rank).padStart(4, '0');

export const keys = {
  apiKey: (keyHash: string): TableKey => ({ PK: `APIKEY#${keyHash}`, SK: 'APIKEY' }),
  account: (accountId: string): TableKey => ({ PK: account(accountId), SK: 'ACCOUNT' }),
  /** The account's request bucket (functions/domain/accounts/request-limits.ts): apart from the account item, whose wallet transactions it must not contend with. */
  requestBucket: (accountId: string): TableKey => ({ PK: account(accountId), SK: 'REQUESTBUCKET' }),
  scanner: (accountId: string, scannerId: string): TableKey => ({ PK: account(accountId), SK: `SCN#${scannerId}` }),
  scannerVersion: (accountId: string, scannerId: string, version: number): TableKey => ({
    PK: account(accountId),
    SK: `SCNV#${scannerId}#${versionSegment(version)}`,
  }),
  ledgerEntry: (accountId: string, entryId: string): TableKey => ({ PK: account(accountId), SK: `LEDGER#${entryId}` }),
  upload: (accountId: string, uploadId: string): TableKey => ({ PK: account(accountId), SK: `UPL#${uploadId}` }),
  run: (accountId: string, runId: string): TableKey => ({ PK: account(accountId), SK: `RUN#${runId}` }),
  analysis: (accountId: string, analysisId: string): TableKey => ({ PK: account(accountId), SK: `ANA#${analysisId}` }),
  batch: (accountId: string, batchId: string): TableKey => ({ PK: account(accountId), SK: `BAT#${batchId}` }),
  /** A batch's items in request order: the numeric item cursor is an offset into this. */
  batchItem: (accountId: string, batchId: string, index: number): TableKey => ({
    PK: account(accountId),
    SK: `BATITEM#${batchId}#${rankSegment(index)}`,
  }),
  /** A run waiting for a concurrency slot; run ids are time-ordered, so the queue reads oldest first. */
  slotQueueEntry: (accountId: string, runId: string): TableKey => ({ PK: account(accountId), SK: `SLOTQ#${runId}` }),
  /** How many runs the deployment has admitted (holding capacity) at once. */
  admittedRuns: (): TableKey => ({ PK: ADMISSION_PARTITION, SK: 'ADMITTED' }),
  /** An account with runs waiting for the deployment's capacity. */
  capacityWaiter: (accountId: string): TableKey => ({ PK: ADMISSION_PARTITION, SK: `WAITING#${accountId}` }),
  /** A run's observations in rank order, read back strongly consistent right after completion. */
  runObservation: (accountId: string, runId: string, rank: number): TableKey => ({
    PK: account(accountId),
    SK: `RUNOBS#${runId}#${rankSegment(rank)}`,
  }),
  /** An analysis's moments in rank order. */
  moment: (accountId: string, analysisId: string, rank: number): TableKey => ({
    PK: account(accountId),
    SK: `MOM#${analysisId}#${rankSegment(rank)}`,
  }),
  /** Idempotency records of one account: one key space per account across endpoints (as Stripe). */
  idempotency: (accountId: string, scopedKey: string): TableKey => ({ PK: account(accountId), SK: `IDEM#${scopedKey}` }),
  /** The ids an idempotent creation claimed (`purpose`: what it creates; `keyHash`: sha256 of the Idempotency-Key). */
  idClaim: (accountId: string, purpose: string, keyHash: string): TableKey => ({ PK: account(accountId), SK: `IDCLAIM#${purpose}#${keyHash}` }),
  /** A terminal event not yet relayed (functions/domain/events/outbox.ts), keyed by its deterministic id. */
  outboxEntry: (accountId: string, eventId: string): TableKey => ({ PK: account(accountId), SK: `OUTBOX#${eventId}` }),
  /** A webhook endpoint (ids are time-ordered: the collection reads newest first). */
  webhookEndpoint: (accountId: string, endpointId: string): TableKey => ({ PK: account(accountId), SK: `WHE#${endpointId}` }),
  /** How many webhook endpoints the account has: the per-account limit is checked against it in the creating transaction. */
  webhookEndpointCount: (accountId: string): TableKey => ({ PK: account(accountId), SK: 'WHECOUNT' }),
  /** A webhook delivery (ids derive from the event and endpoint, ordered by event time: the log reads newest first). */
  webhookDelivery: (accountId: string, deliveryId: string): TableKey => ({ PK: account(accountId), SK: `DLV#${deliveryId}` }),
  /** A render with its assets (ids are time-ordered: render history reads newest first). */
  render: (accountId: string, renderId: string): TableKey => ({ PK: account(accountId), SK: `RND#${renderId}` }),
} as const;

/**
 * GSI1 keys: its partitions start with the account too, except the relay's view of the outbox and
 * the webhook sender's due deliveries: the service's own work queues across accounts (read by
 * the relay and the sender, never by a request).
 */
export const indexKeys = {
  accountObservation: (accountId: string, observationId: string) => ({ GSI1PK: `${account(accountId)}#OBS`, GSI1SK: observationId }),
  /** Pending announcements of every account, oldest first. */
  pendingOutboxEntry: (createdAt: string, eventId: string) => ({ GSI1PK: OUTBOX_PARTITION, GSI1SK: `${createdAt}#${eventId}` }),
  /** Pending webhook deliveries of every account by due time (the local sender's sweep; removed once terminal). */
  dueWebhookDelivery: (nextAttemptAt: string, deliveryId: string) => ({ GSI1PK: DUE_DELIVERIES_PARTITION, GSI1SK: `${nextAttemptAt}#${deliveryId}` }),
} as const;

export const OUTBOX_PARTITION = 'OUTBOX';
export const DUE_DELIVERIES_PARTITION = 'WEBHOOK#DUE';

/** An account-scoped collection: the partition and sort-key prefix to Query, on the table or GSI1. */
export interface Collection {
  PK: string;
  prefix: string;
  index?: 'GSI1';
  /** Only sort keys at or after this one (still within the prefix). */
  from?: string;
}

/** The key attributes a collection is queried (and its cursors keyed) by. */
export const keyAttributesOf = (collection: Collection) =>
  collection.index ? ({ partition: 'GSI1PK', sort: 'GSI1SK' } as const) : ({ partition: 'PK', sort: 'SK' } as const);

/** Partition plus sort-key prefix of each account-scoped collection, for Query. */
export const collections = {
  scanners: (accountId: string) => ({ PK: account(accountId), prefix: 'SCN#' }),
  scannerVersions: (accountId: string, scannerId: string) => ({ PK: account(accountId), prefix: `SCNV#${scannerId}#` }),
  uploads: (accountId: string) => ({ PK: account(accountId), prefix: 'UPL#' }),
  runs: (accountId: string) => ({ PK: account(accountId), prefix: 'RUN#' }),
  /** Analyses of both kinds by time-ordered id; `fromId` narrows to ids at or after it. */
  analyses: (accountId: string, fromId?: string): Collection => ({
    PK: account(accountId),
    prefix: 'ANA#',
    ...(fromId ? { from: `ANA#${fromId}` } : {}),
  }),
  slotQueue: (accountId: string) => ({ PK: account(accountId), prefix: 'SLOTQ#' }),
  /** Every account waiting for the deployment's capacity (not account-scoped: see keys). */
  capacityWaiters: () => ({ PK: ADMISSION_PARTITION, prefix: 'WAITING#' }),
  batches: (accountId: string) => ({ PK: account(accountId), prefix: 'BAT#' }),
  batchItems: (accountId: string, batchId: string) => ({ PK: account(accountId), prefix: `BATITEM#${batchId}#` }),
  runObservations: (accountId: string, runId: string) => ({ PK: account(accountId), prefix: `RUNOBS#${runId}#` }),
  moments: (accountId: string, analysisId: string) => ({ PK: account(accountId), prefix: `MOM#${analysisId}#` }),
  webhookEndpoints: (accountId: string) => ({ PK: account(accountId), prefix: 'WHE#' }),
  webhookDeliveries: (accountId: string) => ({ PK: account(accountId), prefix: 'DLV#' }),
  renders: (accountId: string) => ({ PK: account(accountId), prefix: 'RND#' }),
  /** Every observation of the account by time-ordered id; `fromId` narrows to ids at or after it. */
  accountObservations: (accountId: string, fromId?: string): Collection => ({
    index: 'GSI1',
    PK: `${account(accountId)}#OBS`,
    prefix: 'obs_',
    ...(fromId ? { from: fromId } : {}),
  }),
} as const satisfies Record<string, (...args: never[]) => Collection>;

