import { ApiError } from '../errors.js';
import { nowIso } from '../clock.js';
import { retentionTags } from '../uploads/retention.js';
import type { SourceGateway } from '../sources/ports.js';
import type { AnalysisRef, RunStore } from '../runs/ports.js';
import { getRun } from '../runs/queries.js';

const MEASUREMENT_TOLERANCE_MS = 1_000;

export interface AcquisitionDeps {
  runs: RunStore;
  sources: SourceGateway;
}

/** The source could not be fetched or decoded (failureOf maps the name to `source_unreadable`). */
class SourceUnreadable extends Error {
  override readonly name = 'SourceUnreadable';
}

/** The source is shorter now than the window quoted against it (`source_changed`). */
class SourceChanged extends Error {
  override readonly name = 'SourceChanged';
}

/**
 * The AcquireSource step of a one-off analysis: copies the whole source into the media bucket
 * under the account's retention (renders reuse it), then the pipeline analyses that private copy
 * like an upload. Repeating it replaces the copy. Temporary provider media is removed by the
 * gateway before it returns, so before the analysis completes.
 */
export async function acquireSource(deps: AcquisitionDeps, ref: AnalysisRef): Promise<{ durationMs: number; sizeBytes: number }> {
  const run = await getRun(deps.runs, ref.accountId, ref.runId);
  if (!run.oneOff) throw new TypeError(`Run ${ref.runId} has no source to acquire`);
  let acquired;
  try {
    acquired = await deps.sources.acquire(new URL(run.oneOff.sourceUrl), run.oneOff.origin, {
      objectKey: run.objectKey,
      maxBytes: run.oneOff.maxSourceBytes,
      contentTagging: retentionTags(run.oneOff.retentionDays),
    });
  } catch (error) {
    // A refusal or an unreadable source is the source's fault, not ours: say so on the record.
    if (error instanceof ApiError) throw new SourceUnreadable(error.message, { cause: error });
    throw error;
  }
  // Two measurements of one file (over ranges, then whole) may differ by a frame or two.
  if (run.window && run.window.endMs > acquired.durationMs + MEASUREMENT_TOLERANCE_MS) {
    throw new SourceChanged(`The source is ${acquired.durationMs} ms long; the window ends at ${run.window.endMs} ms`);
  }
  await deps.runs.recordAcquiredSource(ref, { durationMs: acquired.durationMs, sizeBytes: acquired.sizeBytes }, nowIso());
  return { durationMs: acquired.durationMs, sizeBytes: acquired.sizeBytes };
}
