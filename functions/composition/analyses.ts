import type { OneOffDeps } from '../domain/analyses/one-off.js';
import { lazy } from '../shared/memo.js';
import { hostWorkflows } from './host.js';
import { idClaims, runs } from './runs.js';
import { sourceProbing } from './sources.js';

/** Submission of one-off analyses: the probe again, then the reservation and the workflow's start. */
export const oneOffAnalyses = lazy((): OneOffDeps & ReturnType<typeof sourceProbing> => ({
  ...sourceProbing(),
  runs: runs(),
  claims: idClaims(),
  workflows: hostWorkflows,
}));
