import type { CancelDeps } from '../domain/analyses/lifecycle.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host-parts.js';
import { runs, slots } from './runs.js';

/**
 * Canceling queued analyses: the conditional refund (its events into the outbox with it), and
 * waking the canceled workflow. Apart from analyses.ts so the route carries no source gateway.
 */
export const analysisCancellation = lazy((): CancelDeps => ({ runs: runs(), slots: slots(), callbacks: hostWorkflows }));
