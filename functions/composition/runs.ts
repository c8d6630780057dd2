import { meteredRunStore } from '../adapters/metered-stores.js';
import { dynamoRunStore } from '../adapters/table/run-store.js';
import { dynamoSlotStore } from '../adapters/table/slot-store.js';
import { dynamoIdClaims } from '../adapters/table/id-claims.js';
import { config } from '../config.js';
import type { CancelDeps } from '../domain/analyses/lifecycle.js';
import type { SubmitRunDeps } from '../domain/runs/submit.js';
import { lazy } from '../shared/memo.js';
import { powertoolsMetrics } from '../shared/metrics.js';
import { hostWorkflows } from './host.js';
import { scanners } from './scanners.js';
import { table } from './table.js';
import { findRunnableSource } from './uploads.js';

export const runs = lazy(() => meteredRunStore(dynamoRunStore(table()), powertoolsMetrics));
export const slots = lazy(() => dynamoSlotStore(table()));
/** Ids claimed under Idempotency-Keys, kept as long as the idempotency records. */
export const idClaims = lazy(() => dynamoIdClaims(table(), config().IDEMPOTENCY_TTL_SECONDS));

/** Submitting a run: the scanner, its source, the reservation and the analysis workflow's start. */
export const runSubmission = lazy(
  (): SubmitRunDeps => ({ ...scanners(), runs: runs(), findSource: findRunnableSource(), workflows: hostWorkflows, claims: idClaims() }),
);

/**
 * Canceling queued analyses (one-off runs): the conditional refund (its events into the outbox
 * with it), and waking the canceled workflow. Here, not in analyses.ts, so that the route carries
 * no source gateway.
 */
export const analysisCancellation = lazy((): CancelDeps => ({ runs: runs(), slots: slots(), callbacks: hostWorkflows }));
