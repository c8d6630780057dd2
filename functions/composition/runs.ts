import { meteredRunStore } from '../adapters/metered-stores.js';
import { dynamoRunStore } from '../adapters/table/run-store.js';
import { powertoolsMetrics } from '../shared/metrics.js';
import { dynamoSlotStore } from '../adapters/table/slot-store.js';
import type { RunnableSourceLookup } from '../domain/runs/ports.js';
import type { SubmitRunDeps } from '../domain/runs/submit.js';
import { findRunnableUpload } from '../domain/uploads.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host-parts.js';
import { scanners } from './scanners.js';
import { table } from './table.js';
import { uploadStore } from './uploads.js';

export const runs = lazy(() => meteredRunStore(dynamoRunStore(table()), powertoolsMetrics));
export const slots = lazy(() => dynamoSlotStore(table()));

/** A ready upload of the account as a run's source (400 upload_not_found / upload_not_ready otherwise). */
export const findRunnableSource = lazy((): RunnableSourceLookup => {
  const store = uploadStore();
  return async (accountId, uploadId, param) => {
    const upload = await findRunnableUpload(store, accountId, uploadId, new Date(), param);
    return { uploadId: upload.uploadId, mediaKind: upload.mediaKind, durationMs: upload.durationMs ?? 0, objectKey: upload.objectKey };
  };
});

/** Submitting a run: the scanner, its source, the reservation and the analysis workflow's start. */
export const runSubmission = lazy((): SubmitRunDeps => ({ ...scanners(), runs: runs(), findSource: findRunnableSource(), workflows: hostWorkflows }));
