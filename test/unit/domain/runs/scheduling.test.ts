/**
 * The scheduling use cases (DESIGN §6) against an in-memory slot store that applies the same
 * conditions as the DynamoDB one: who is woken, in which order, and what happens when a grant
 * races a workflow arming its token. The real store runs under the integration tests.
 */
import { describe, expect, it } from 'vitest';
import { acquireSlot, dispatchWaiting, releaseSlot, RunNotStartable, type SchedulingDeps } from '../../../../functions/domain/runs/scheduling.js';
import type { GrantOutcome, SlotQueueEntry, SlotStore } from '../../../../functions/domain/runs/ports.js';
import type { RunRecord } from '../../../../functions/domain/runs/model.js';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

interface FakeRun {
  status: RunRecord['status'];
  slot?: 'held' | 'released';
}

function world(limit: number, runIds: string[]) {
  const runs = new Map<string, FakeRun>(runIds.map((id) => [id, { status: 'queued' }]));
  const queue = new Map<string, SlotQueueEntry>(runIds.map((id) => [id, { runId: id, analysisId: `ana_${id}`, taskToken: null }]));
  let inUse = 0;
  const woken: string[] = [];
  const slots: SlotStore = {
    awaitSlot: ({ runId }, token) => {
      const run = runs.get(runId)!;
      if (run.status !== 'queued' || run.slot) return Promise.resolve(false);
      queue.set(runId, { runId, analysisId: `ana_${runId}`, taskToken: token });
      return Promise.resolve(true);
    },
    oldestWaiting: () => Promise.resolve([...queue.values()].sort((a, b) => a.runId.localeCompare(b.runId))[0]),
    waitingEntry: (_account, runId) => Promise.resolve(queue.get(runId)),
    grant: (_account, entry, max): Promise<GrantOutcome> => {
      if (inUse >= max) return Promise.resolve('account_full');
      if (queue.get(entry.runId)?.taskToken !== entry.taskToken) return Promise.resolve('entry_changed');
      const run = runs.get(entry.runId)!;
      if (run.status !== 'queued' || run.slot) return Promise.resolve('run_not_waiting');
      inUse += 1;
      queue.delete(entry.runId);
      Object.assign(run, { status: 'dispatched', slot: 'held' });
      return Promise.resolve('granted');
    },
    dropEntry: (_account, runId) => Promise.resolve(void queue.delete(runId)),
    release: ({ runId }) => {
      const run = runs.get(runId)!;
      if (run.slot !== 'held') return Promise.resolve(false);
      run.slot = 'released';
      inUse -= 1;
      return Promise.resolve(true);
    },
    queuePosition: () => Promise.resolve(null),
    countWaiting: () => Promise.resolve(queue.size),
    recount: () => Promise.resolve(),
  };
  const deps = {
    slots,
    accounts: { getAccount: () => Promise.resolve(testAccount({ plan: 'enterprise', limitOverrides: { concurrency: limit } })) },
    runs: { getRun: (_a: string, runId: string) => Promise.resolve(runs.get(runId) as RunRecord | undefined) },
    callbacks: { succeed: (token: string) => Promise.resolve(void woken.push(token)) },
  } as unknown as SchedulingDeps;
  const ref = (runId: string) => ({ accountId: ACCOUNT_ID, runId, analysisId: `ana_${runId}` });
  return { deps, runs, queue, woken, ref, inUse: () => inUse };
}

describe('acquireSlot and dispatchWaiting', () => {
  it('grants up to the limit, oldest first, and wakes exactly the granted workflows', async () => {
    const w = world(2, ['run_a', 'run_b', 'run_c']);
    await acquireSlot(w.deps, w.ref('run_c'), 'token-c');
    await acquireSlot(w.deps, w.ref('run_b'), 'token-b');
    // run_a had no token yet: granted (the oldest) but nobody to wake until its workflow arrives.
    expect(w.runs.get('run_a')).toMatchObject({ status: 'dispatched', slot: 'held' });
    expect(w.woken).toEqual(['token-b']);
    expect(w.runs.get('run_c')!.status).toBe('queued');
    await acquireSlot(w.deps, w.ref('run_a'), 'token-a');
    expect(w.woken).toEqual(['token-b', 'token-a']);
    expect(w.inUse()).toBe(2);
  });

  it('a release hands the slot to the oldest waiting run, once', async () => {
    const w = world(1, ['run_a', 'run_b']);
    await acquireSlot(w.deps, w.ref('run_a'), 'token-a');
    await acquireSlot(w.deps, w.ref('run_b'), 'token-b');
    expect(w.woken).toEqual(['token-a']);
    w.runs.get('run_a')!.status = 'completed';
    await releaseSlot(w.deps, w.ref('run_a'));
    await releaseSlot(w.deps, w.ref('run_a'));
    expect(w.woken).toEqual(['token-a', 'token-b']);
    expect(w.inUse()).toBe(1);
  });

  it('a queue entry of a run that is no longer waiting is dropped, and the next run gets the slot', async () => {
    const w = world(1, ['run_a', 'run_b']);
    w.runs.get('run_a')!.status = 'failed';
    await acquireSlot(w.deps, w.ref('run_b'), 'token-b');
    expect(w.queue.has('run_a')).toBe(false);
    expect(w.woken).toEqual(['token-b']);
  });

  it('a run resumed while it holds its slot is woken at once; a finished one is not startable', async () => {
    const w = world(1, ['run_a', 'run_b']);
    Object.assign(w.runs.get('run_a')!, { status: 'processing', slot: 'held' });
    await acquireSlot(w.deps, w.ref('run_a'), 'token-again');
    expect(w.woken).toEqual(['token-again']);
    w.runs.get('run_b')!.status = 'failed';
    await expect(acquireSlot(w.deps, w.ref('run_b'), 'token-b')).rejects.toBeInstanceOf(RunNotStartable);
  });

  it('re-reads when a workflow re-armed its entry between read and grant', async () => {
    const w = world(1, ['run_a']);
    let first = true;
    const grant = w.deps.slots.grant.bind(w.deps.slots);
    w.deps.slots.grant = (account, entry, max, now) => {
      if (first) {
        first = false;
        w.queue.set('run_a', { ...entry, taskToken: 'token-rearmed' });
      }
      return grant(account, entry, max, now);
    };
    await dispatchWaiting(w.deps, ACCOUNT_ID);
    expect(w.woken).toEqual(['token-rearmed']);
  });
});
