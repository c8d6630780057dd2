import { limitsOf, requireAccount } from '../accounts.js';
import { nowIso } from '../clock.js';
import type { AccountStore } from '../ports.js';
import type { AnalysisRef, RunStore, SlotStore, TaskTokenCallbacks } from './ports.js';

/**
 * Fair scheduling (DESIGN §6): every account has its plan's number of concurrency slots. A run
 * waits `queued` until its account has a free slot, oldest first; it is `dispatched` when granted
 * and `processing` when compute starts. Accounts never share slots, so one account's backlog never
 * delays another's work. Every step here is safe to repeat.
 */
export interface SchedulingDeps {
  runs: RunStore;
  slots: SlotStore;
  accounts: AccountStore;
  callbacks: TaskTokenCallbacks;
}

export class RunNotStartable extends Error {
  override readonly name = 'RunNotStartable';
}

const GRANTED = { granted: true } as const;
/** Grants race with other grants and with workflows arming their tokens; each lost race re-reads. */
const MAX_DISPATCH_ROUNDS = 50;

/**
 * The AcquireSlot step: arms the run's queue entry with the workflow's task token and dispatches.
 * The workflow waits, costing nothing, until a grant sends the token back. A run granted before
 * its workflow got here (or resumed after a restart) is woken at once.
 */
export async function acquireSlot(deps: SchedulingDeps, ref: AnalysisRef, taskToken: string): Promise<void> {
  if (await deps.slots.awaitSlot(ref, taskToken)) {
    await dispatchWaiting(deps, ref.accountId);
    return;
  }
  const run = await deps.runs.getRun(ref.accountId, ref.runId);
  if (run?.slot !== 'held' || !['dispatched', 'processing'].includes(run.status)) {
    throw new RunNotStartable(`Run ${ref.runId} is not waiting for a slot (${run?.status ?? 'missing'})`);
  }
  await deps.callbacks.succeed(taskToken, GRANTED);
}

/** Grants free slots of the account to its oldest waiting runs and wakes their workflows. */
export async function dispatchWaiting(deps: SchedulingDeps, accountId: string): Promise<void> {
  const account = await requireAccount(deps.accounts, accountId);
  const limit = limitsOf(account).concurrency;
  for (let round = 0; round < MAX_DISPATCH_ROUNDS; round++) {
    const entry = await deps.slots.oldestWaiting(accountId);
    if (!entry) return;
    const outcome = await deps.slots.grant(accountId, entry, limit, nowIso());
    if (outcome === 'account_full') return;
    if (outcome === 'run_not_waiting') await deps.slots.dropEntry(accountId, entry.runId);
    // No token yet: the workflow finds its slot held when it reaches AcquireSlot.
    if (outcome === 'granted' && entry.taskToken) await deps.callbacks.succeed(entry.taskToken, GRANTED);
  }
  throw new Error(`Dispatch for account ${accountId} did not settle after ${MAX_DISPATCH_ROUNDS} rounds`);
}

/** Gives a finished run's slot back (at most once) and hands free slots to the account's queue. */
export async function releaseSlot(deps: SchedulingDeps, ref: AnalysisRef): Promise<void> {
  await deps.slots.release(ref, nowIso());
  await dispatchWaiting(deps, ref.accountId);
}
