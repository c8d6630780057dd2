import { nowIso } from '../../clock.js';
import type { RunRecord } from '../model.js';
import type { AnalysisRef } from '../ports.js';
import { getRun } from '../queries.js';
import { RunNotStartable } from '../scheduling.js';
import type { PipelineDeps, SignalsRunner, SignalsRunnerSetting } from './deps.js';

/** A one-off source up to this size may be acquired by the function (its /tmp and time suffice). */
const FUNCTION_ACQUISITION_MAX_BYTES = 256 * 1024 ** 2;

/**
 * Where a one-off source is acquired. `auto`: the function only for a direct download of known,
 * modest size; a container for the rest (no time limit, room on disk, and yt-dlp for page URLs,
 * which the function runtime does not carry).
 */
export function acquisitionRunnerFor(setting: SignalsRunnerSetting, run: RunRecord): SignalsRunner | 'none' {
  if (!run.oneOff) return 'none';
  if (setting !== 'auto') return setting;
  const { origin } = run.oneOff;
  const size = run.oneOff.knownSizeBytes;
  const direct = origin.kind === 'trusted_host' || origin.provider.resolver === 'storage-link';
  return direct && size !== null && size <= FUNCTION_ACQUISITION_MAX_BYTES ? 'lambda' : 'container';
}

/** Compute starts: the run is processing, and the state machine learns whether (and where) a source must be acquired first. */
export async function markProcessing(deps: PipelineDeps, ref: AnalysisRef): Promise<{ status: 'processing'; acquisition: SignalsRunner | 'none' }> {
  if (!(await deps.runs.markProcessing(ref, nowIso()))) throw new RunNotStartable(`Run ${ref.runId} is not startable`);
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  return { status: 'processing', acquisition: acquisitionRunnerFor(deps.acquisitionRunner, run) };
}
