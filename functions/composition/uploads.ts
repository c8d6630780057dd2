import { meteredUploadStore } from '../adapters/metered-stores.js';
import { dynamoUploadStore } from '../adapters/table/upload-store.js';
import type { RunnableSourceLookup } from '../domain/runs/ports.js';
import { findRunnableUpload } from '../domain/uploads/status.js';
import { lazy } from '../shared/memo.js';
import { powertoolsMetrics } from '../shared/metrics.js';
import { table } from './table.js';

/** Upload records alone (no bucket, no probe): what reads and run submissions need. */
export const uploadStore = lazy(() => meteredUploadStore(dynamoUploadStore(table()), powertoolsMetrics));

/** A ready upload of the account as a run's source (400 upload_not_found / upload_not_ready otherwise). */
export const findRunnableSource = lazy((): RunnableSourceLookup => {
  const store = uploadStore();
  return async (accountId, uploadId, param) => {
    const upload = await findRunnableUpload(store, accountId, uploadId, new Date(), param);
    return { uploadId: upload.uploadId, mediaKind: upload.mediaKind, durationMs: upload.durationMs ?? 0, objectKey: upload.objectKey };
  };
});
