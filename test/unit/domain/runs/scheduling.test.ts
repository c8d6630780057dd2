/**
 * The scheduling use cases (DESIGN §6) against an in-memory slot store that applies the same
 * conditions as the DynamoDB one: who is woken, in which order, and what happens when a grant
 * races a workflow arming its token; and admission to the deployment's capacity across accounts.
 * The real store runs under the integration tests and `BENCH_ONLY=backlog`.
 */
import { describe, expect, it } from 'vitest';
import { acquireSlot, dispatchWaiting, releaseSlot, RunNotStartable, type SchedulingDeps } from '../../../../functions/domain/runs/scheduling.js';
import type { GrantOutcome, SlotQueueEntry, SlotStore } from '../../../../functions/domain/runs/ports.js';
import type { RunRecord } from '../../../../functions/domain/runs/model.js';
import { ACCOUNT_ID, testAccount } from '../../../helpers/unit-fixtures.js';

interface FakeRun {
  accountId: string;
  status: RunRecord['status'];
  slot?: 'held' | 'released';
  capacity?: 'held' | 'released';
}

/**
 * `runIds` are in submission order (ids are time-ordered, as the real ones); `accountOf` places
 * each run in an account (one account by default), each account with `limit` slots, and the
 * deployment admits `capacity` runs at once.
 */
function world(limit: number, runIds: string[], { capacity = 100, accountOf = (_runId: string): string => ACCOUNT_ID } = {}) {
  const runs = new Map<string, FakeRun>(runIds.map((id) => [id, { accountId: accountOf(id), status: 'queued' }]));
  const queue = new Map<string, SlotQueueEntry>(runIds.map((id) => [id, { runId: id, analysisId: `ana_${id}`, taskToken: null }]));
  const inUse = new Map<string, number>();
  const lastGranted = new Map<string, string>();
  let grants = 0;
  const waiters = new Map<string, number>();
  let admitted = 0;
  let maxAdmitted = 0;
  const woken: string[] = [];
  const holding = (accountId: string) => inUse.get(accountId) ?? 0;
  const slots: SlotStore = {
    awaitSlot: ({ runId }, token) => {
      const run = runs.get(runId)!;
      if (run.status !== 'queued' || run.slot) return Promise.resolve(false);
      queue.set(runId, { runId, analysisId: `ana_${runId}`, taskToken: token });
      return Promise.resolve(true);
    },
    oldestWaiting: (accountId) =>
      Promise.resolve([...queue.values()].filter((e) => runs.get(e.runId)!.accountId === accountId).sort((a, b) => a.runId.localeCompare(b.runId))[0]),
    waitingEntry: (_account, runId) => Promise.resolve(queue.get(runId)),
    grant: (accountId, entry, limits): Promise<GrantOutcome> => {
      if (holding(accountId) >= limits.account) return Promise.resolve('account_full');
      if (admitted >= limits.capacity) return Promise.resolve('capacity_full');
      if (queue.get(entry.runId)?.taskToken !== entry.taskToken) return Promise.resolve('entry_changed');
      const run = runs.get(entry.runId)!;
      if (run.status !== 'queued' || run.slot) return Promise.resolve('run_not_waiting');
      inUse.set(accountId, holding(accountId) + 1);
      lastGranted.set(accountId, String(++grants).padStart(4, '0'));
      admitted += 1;
      maxAdmitted = Math.max(maxAdmitted, admitted);
      queue.delete(entry.runId);
      Object.assign(run, { status: 'dispatched', slot: 'held', capacity: 'held' });
      return Promise.resolve('granted');
    },
    dropEntry: (_account, runId) => Promise.resolve(void queue.delete(runId)),
    release: ({ runId }) => {
      const run = runs.get(runId)!;
      const slot = run.slot === 'held';
      const capacity = run.capacity === 'held';
      if (slot) inUse.set(run.accountId, holding(run.accountId) - 1);
      if (capacity) admitted -= 1;
      if (slot) run.slot = 'released';
      if (capacity) run.capacity = 'released';
      return Promise.resolve(slot || capacity);
    },
    queuePosition: () => Promise.resolve(null),
    countWaiting: () => Promise.resolve(queue.size),
    slotUse: (accountId) => Promise.resolve({ inUse: holding(accountId), lastGrantedAt: lastGranted.get(accountId) ?? null }),
    recount: () => Promise.resolve(),
    recountCapacity: () => Promise.resolve(),
    markCapacityWaiter: (accountId) => Promise.resolve(void waiters.set(accountId, (waiters.get(accountId) ?? 0) + 1)),
    capacityWaiters: () => Promise.resolve([...waiters].map(([accountId, mark]) => ({ accountId, mark }))),
    clearCapacityWaiter: ({ accountId, mark }) => Promise.resolve(void (waiters.get(accountId) === mark && waiters.delete(accountId))),
  };
  const deps = {
    slots,
    accounts: { getAccount: (accountId: string) => Promise.resolve(testAccount({ accountId, plan: 'enterprise', limitOverrides: { concurrency: limit } })) },
    runs: { getRun: (_a: string, runId: string) => Promise.resolve(runs.get(runId) as RunRecord | undefined) },
    callbacks: { succeed: (token: string) => Promise.resolve(void woken.push(token)) },
    runCapacity: capacity,
  } as unknown as SchedulingDeps;
  const ref = (runId: string) => ({ accountId: accountOf(runId), runId, analysisId: `ana_${runId}` });
  /** The run ends (as CompleteRun or FailRun would) and gives its slot and capacity back. */
  const finish = async (runId: string) => {
    runs.get(runId)!.status = 'completed';
    await releaseSlot(deps, ref(runId));
  };
  const dispatched = () => [...runs].find(([, run]) => run.status === 'dispatched')?.[0];
  return {
    deps,
    runs,
    queue,
    woken,
    waiters,
    ref,
    finish,
    dispatched,
    inUse: () => holding(ACCOUNT_ID),
    admitted: () => admitted,
    maxAdmitted: () => maxAdmitted,
  };
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
    w.deps.slots.grant = (account, entry, limits, now) => {
      if (first) {
        first = false;
        w.queue.set('run_a', { ...entry, taskToken: 'token-rearmed' });
      }
      return grant(account, entry, limits, now);
    };
    await dispatchWaiting(w.deps, ACCOUNT_ID);
    expect(w.woken).toEqual(['token-rearmed']);
  });
});

describe("admission to the deployment's capacity", () => {
  /** Two-digit numbers keep submission order lexical, as time-ordered ids do. */
  const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `run_${prefix}${String(i).padStart(2, '0')}`);
  const accountOfRun = (runId: string) => `acct_${runId.slice(4, 5)}`;

  it("admits no more runs than the capacity, whatever the accounts' slots, and admits the rest as runs finish", async () => {
    const runIds = [...ids('a', 6), ...ids('b', 6), ...ids('c', 6)];
    const w = world(4, runIds, { capacity: 3, accountOf: accountOfRun });
    for (const runId of runIds) await acquireSlot(w.deps, w.ref(runId), `token-${runId}`);
    expect(w.admitted()).toBe(3);
    for (let running = w.dispatched(); running; running = w.dispatched()) await w.finish(running);
    expect(w.maxAdmitted()).toBe(3);
    expect(new Set(w.woken).size).toBe(runIds.length);
    expect(w.admitted()).toBe(0);
  });

  it("one account's backlog never delays another account's first run: freed capacity goes to the account holding the fewest", async () => {
    // Account a submitted 10 runs before b and c submitted one each; the capacity is 2.
    const runIds = [...ids('a', 10), 'run_b00', 'run_c00'];
    const w = world(5, runIds, { capacity: 2, accountOf: accountOfRun });
    for (const runId of runIds) await acquireSlot(w.deps, w.ref(runId), `token-${runId}`);
    expect(w.woken).toEqual(['token-run_a00', 'token-run_a01']);
    expect([...w.waiters.keys()].sort()).toEqual(['acct_a', 'acct_b', 'acct_c']);
    await w.finish('run_a00');
    // a still holds one run, b and c none: b's run (older than c's) goes first.
    expect(w.woken.at(-1)).toBe('token-run_b00');
    // Now a and b hold none: c, never granted, goes before a, granted most recently.
    await w.finish('run_a01');
    expect(w.woken.at(-1)).toBe('token-run_c00');
    await w.finish('run_b00');
    expect(w.woken.at(-1)).toBe('token-run_a02');
  });

  it('a run refused capacity is admitted when capacity frees between the refusal and its mark', async () => {
    const w = world(2, ['run_a00', 'run_b00'], { capacity: 1, accountOf: accountOfRun });
    await acquireSlot(w.deps, w.ref('run_a00'), 'token-a');
    const mark = w.deps.slots.markCapacityWaiter.bind(w.deps.slots);
    w.deps.slots.markCapacityWaiter = async (accountId) => {
      // The release reads the waiters before this mark lands, so it finds nobody to hand the capacity to.
      if (accountId === 'acct_b' && w.runs.get('run_a00')!.status !== 'completed') await w.finish('run_a00');
      await mark(accountId);
    };
    await acquireSlot(w.deps, w.ref('run_b00'), 'token-b');
    expect(w.woken).toEqual(['token-a', 'token-b']);
    expect(w.admitted()).toBe(1);
  });

  it('gives capacity back once, however often the release is repeated', async () => {
    const w = world(3, ['run_a00', 'run_a01', 'run_a02'], { capacity: 1, accountOf: accountOfRun });
    for (const runId of ['run_a00', 'run_a01', 'run_a02']) await acquireSlot(w.deps, w.ref(runId), `token-${runId}`);
    await w.finish('run_a00');
    await w.finish('run_a00');
    expect(w.woken).toEqual(['token-run_a00', 'token-run_a01']);
    expect(w.admitted()).toBe(1);
  });

  it("forgets an account's mark once nothing of it waits", async () => {
    const w = world(2, ['run_a00', 'run_b00'], { capacity: 1, accountOf: accountOfRun });
    await acquireSlot(w.deps, w.ref('run_a00'), 'token-a');
    await acquireSlot(w.deps, w.ref('run_b00'), 'token-b');
    expect(w.waiters.has('acct_b')).toBe(true);
    await w.finish('run_a00');
    await w.finish('run_b00');
    expect(w.waiters.size).toBe(0);
  });
});
