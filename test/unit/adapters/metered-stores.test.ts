import { describe, expect, it } from 'vitest';
import { meteredRunStore, meteredUploadStore } from '../../../functions/adapters/metered-stores.js';
import type { RunStore } from '../../../functions/domain/runs/ports.js';
import type { UploadRecord } from '../../../functions/domain/uploads/model.js';
import type { UploadStore } from '../../../functions/domain/uploads/ports.js';
import type { AnalysisRecord, RunRecord } from '../../../functions/domain/runs/model.js';
import type { BusinessMetric, MetricsSink } from '../../../functions/shared/metrics.js';

function recordingSink() {
  const counted: [BusinessMetric, number, string?][] = [];
  const sink: MetricsSink = {
    count: (name, value, dimension) => void counted.push(dimension ? [name, value, `${dimension.name}=${dimension.value}`] : [name, value]),
  };
  return { sink, counted };
}

const run = { runId: 'run_1', accountId: 'acct_1', analysisId: 'ana_1', credits: 3 } as RunRecord;
const ref = { accountId: 'acct_1', runId: 'run_1', analysisId: 'ana_1' };
const entry = { entryId: 'led_1', credits: -3, reason: 'reserve', createdAt: '2026-01-01T00:00:00.000Z' };

/** A run store whose transitions answer as the test says. */
const runStore = (answers: { created: 'created' | 'insufficient_credits'; completed: boolean; failed: boolean }) =>
  ({
    createWithReservation: () => Promise.resolve(answers.created),
    complete: () => Promise.resolve(answers.completed),
    failAndRefund: () => Promise.resolve(answers.failed),
    getRun: () => Promise.resolve(run),
  }) as unknown as RunStore;

describe('meteredRunStore', () => {
  it('counts a submission, its completion and the credits charged, once each', async () => {
    const { sink, counted } = recordingSink();
    const store = meteredRunStore(runStore({ created: 'created', completed: true, failed: false }), sink);
    await store.createWithReservation(run, {} as AnalysisRecord, entry);
    await store.complete(ref, 2, 'now', []);
    await store.getRun('acct_1', 'run_1');
    await store.getRun('acct_1', 'run_1');
    expect(counted).toEqual([
      ['RunsSubmitted', 1],
      ['CreditsReserved', 3],
      ['RunsCompleted', 1],
      ['CreditsCharged', 3],
    ]);
  });

  it('counts nothing for a refused reservation or a transition another attempt already made', async () => {
    const { sink, counted } = recordingSink();
    const store = meteredRunStore(runStore({ created: 'insufficient_credits', completed: false, failed: false }), sink);
    await store.createWithReservation(run, {} as AnalysisRecord, entry);
    await store.complete(ref, 2, 'now', []);
    await store.failAndRefund(run, { code: 'analysis_failed', message: 'x' }, { ...entry, credits: 3 }, 'now', []);
    await store.getRun('acct_1', 'run_1');
    expect(counted).toEqual([]);
  });

  it('counts a failure with the credits it refunded', async () => {
    const { sink, counted } = recordingSink();
    const store = meteredRunStore(runStore({ created: 'created', completed: false, failed: true }), sink);
    await store.failAndRefund(run, { code: 'analysis_failed', message: 'x' }, { ...entry, credits: 3 }, 'now', []);
    expect(counted).toEqual([
      ['RunsFailed', 1],
      ['CreditsRefunded', 3],
    ]);
  });
});

describe('meteredUploadStore', () => {
  it('counts failed uploads by reason, and only when this completion settled them', async () => {
    const { sink, counted } = recordingSink();
    let settles = true;
    const store = meteredUploadStore({ finish: () => Promise.resolve(settles) } as unknown as UploadStore, sink);
    const failed = { status: 'failed', error: { code: 'truncated_media', message: 'x' } } as UploadRecord;
    await store.finish('acct_1', failed, 0, []);
    await store.finish('acct_1', { status: 'ready', error: null } as UploadRecord, 0, []);
    settles = false;
    await store.finish('acct_1', failed, 0, []);
    expect(counted).toEqual([['UploadFailures', 1, 'reason=truncated_media']]);
  });
});
