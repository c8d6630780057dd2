import type { RunStore } from '../domain/runs/ports.js';
import type { UploadStore } from '../domain/uploads/ports.js';
import type { MetricsSink } from '../shared/metrics.js';

/**
 * The run store, counting what each settled transition moved: runs submitted, completed and
 * failed, and the credits reserved, charged and refunded. Counted only when the transaction
 * took effect, so a retried step never counts twice.
 */
export function meteredRunStore(store: RunStore, sink: MetricsSink): RunStore {
  // A completed run's charge is its credits, which `complete` does not read: they are counted
  // when the run is next read, which the pipeline does at once (no read of its own here).
  const charged = new Set<string>();
  return {
    ...store,
    async getRun(accountId, runId) {
      const run = await store.getRun(accountId, runId);
      if (run && charged.delete(runId)) sink.count('CreditsCharged', run.credits);
      return run;
    },
    async createWithReservation(run, analysis, entry) {
      const outcome = await store.createWithReservation(run, analysis, entry);
      if (outcome === 'created') {
        sink.count('RunsSubmitted', 1);
        sink.count('CreditsReserved', run.credits);
      }
      return outcome;
    },
    async complete(ref, observationCount, now, announcements) {
      const completed = await store.complete(ref, observationCount, now, announcements);
      if (completed) {
        sink.count('RunsCompleted', 1);
        charged.add(ref.runId);
      }
      return completed;
    },
    async failAndRefund(run, error, refund, now, announcements) {
      const failed = await store.failAndRefund(run, error, refund, now, announcements);
      if (failed) {
        sink.count('RunsFailed', 1);
        sink.count('CreditsRefunded', refund.credits);
      }
      return failed;
    },
  };
}

/** The upload store, counting uploads that failed their probe, by reason (the error code). */
export function meteredUploadStore(store: UploadStore, sink: MetricsSink): UploadStore {
  return {
    ...store,
    async finish(accountId, next, expireAtEpochSeconds, announcements) {
      const finished = await store.finish(accountId, next, expireAtEpochSeconds, announcements);
      if (finished && next.status === 'failed') sink.count('UploadFailures', 1, { name: 'reason', value: next.error?.code ?? 'unknown' });
      return finished;
    },
  };
}
