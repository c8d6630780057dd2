import { config } from '../config.js';
import type { AcquisitionDeps } from '../domain/analyses/acquire.js';
import type { CancelDeps } from '../domain/analyses/lifecycle.js';
import type { OneOffDeps } from '../domain/analyses/one-off.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host-parts.js';
import { idClaims, runs, slots } from './runs.js';
import { sourceGateway } from './sources.js';
import { accounts } from './table.js';

/** Preflight, quote and submission of one-off analyses (the source gateway probes; nothing is stored before submission). */
export const oneOffAnalyses = lazy((): OneOffDeps & { accounts: ReturnType<typeof accounts> } => ({
  runs: runs(),
  claims: idClaims(),
  accounts: accounts(),
  sources: sourceGateway(),
  workflows: hostWorkflows,
  allowLoopback: config().LOCAL_ALLOW_LOOPBACK_TARGETS,
}));

/** Canceling queued analyses: the conditional refund (its events into the outbox with it), and waking the canceled workflow. */
export const analysisCancellation = lazy((): CancelDeps => ({ runs: runs(), slots: slots(), callbacks: hostWorkflows }));

/** The AcquireSource step. */
export const acquisition = lazy((): AcquisitionDeps => ({ runs: runs(), sources: sourceGateway() }));
