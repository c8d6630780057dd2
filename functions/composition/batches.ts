import { config } from '../config.js';
import { dynamoBatchStore } from '../adapters/table/batch-store.js';
import type { BatchDeps } from '../domain/batches/submit.js';
import type { BatchWorkflowDeps } from '../domain/batches/workflow.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host.js';
import { idClaims, runs } from './runs.js';
import { findRunnableSource } from './uploads.js';
import { scanners } from './scanners.js';
import { accounts } from './accounts.js';
import { table } from './table.js';

export const batches = lazy(() => dynamoBatchStore(table()));

export const batchSubmission = lazy(
  (): BatchDeps => ({
    batches: batches(),
    claims: idClaims(),
    scanners: scanners().scanners,
    findSource: findRunnableSource(),
    batchWorkflows: hostWorkflows,
    batchesEnabled: config().SCANNER_BATCHES_ENABLED,
  }),
);

/** The batch workflow's steps: spawning item runs and settling them. */
export const batchWorkflow = lazy(
  (): BatchWorkflowDeps => ({
    batches: batches(),
    runs: runs(),
    scanners: scanners().scanners,
    accounts: accounts(),
    findSource: findRunnableSource(),
    workflows: hostWorkflows,
    callbacks: hostWorkflows,
  }),
);
