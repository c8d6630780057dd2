import { config } from '../config.js';
import { lazy } from '../shared/memo.js';
import { sourceReader } from './sources.js';
import { accounts } from './table.js';

/** Preflight and quote: the source gateway probes, and nothing is stored (no run store, no workflows in these bundles). */
export const sourceProbing = lazy(() => ({ accounts: accounts(), sources: sourceReader(), allowLoopback: config().LOCAL_ALLOW_LOOPBACK_TARGETS }));
