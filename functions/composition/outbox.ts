import { dynamoBatchStore } from '../adapters/table/batch-store.js';
import { dynamoOutboxStore } from '../adapters/table/outbox.js';
import { dynamoRenderStore } from '../adapters/table/render-store.js';
import { dynamoRunStore } from '../adapters/table/run-store.js';
import { dynamoUploadStore } from '../adapters/table/upload-store.js';
import type { EventSubjects } from '../domain/events/ports.js';
import type { RelayDeps } from '../domain/events/outbox.js';
import { presentAnalysis } from '../resources/analyses/presenter.js';
import { presentBatchSummary } from '../resources/batches/presenter.js';
import { logger } from '../shared/logger.js';
import { lazy } from '../shared/memo.js';
import { presentUpload } from '../resources/uploads/presenter.js';
import { presentRun } from '../resources/runs/presenter.js';
import { presentRender } from '../resources/renders/presenter.js';
import { hostEvents } from './host.js';
import { table } from './table.js';

/** Each subject as its GET presents it: what an event's `data.object` is. */
const eventSubjects = (): EventSubjects => {
  const runs = dynamoRunStore(table());
  const uploads = dynamoUploadStore(table());
  const batches = dynamoBatchStore(table());
  const renders = dynamoRenderStore(table());
  const presented = <T, R>(record: T | undefined, present: (record: T) => R): R | undefined => (record === undefined ? undefined : present(record));
  return {
    async present(accountId, subject) {
      switch (subject.kind) {
        case 'run':
          return presented(await runs.getRun(accountId, subject.runId), presentRun);
        case 'analysis':
          return presented(await runs.getAnalysis(accountId, subject.analysisId), presentAnalysis);
        case 'upload':
          return presented(await uploads.get(accountId, subject.uploadId), (upload) => presentUpload(upload, new Date()));
        case 'batch':
          return presented(await batches.get(accountId, subject.batchId), presentBatchSummary);
        case 'render':
          // Without download URLs: a signed URL is a secret (DESIGN §9); GET the render for fresh ones.
          return presented(await renders.get(accountId, subject.renderId), (render) => presentRender(render));
      }
    },
  };
};

/** The outbox relay: pending announcements, the records they name, and the host's event bus. */
export const outboxRelay = lazy(
  (): RelayDeps => ({
    outbox: dynamoOutboxStore(table()),
    subjects: eventSubjects(),
    events: hostEvents,
    warn: (message, error) => logger.warn(message, error as Error),
  }),
);
