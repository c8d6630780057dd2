import { limitsOf, requireAccount } from '../accounts/accounts.js';
import { nowIso } from '../clock.js';
import type { AccountStore } from '../accounts/ports.js';
import type { AnalysisRef, GrantLimits, GrantOutcome, RunStore, SlotQueueEntry, SlotStore, SlotUse, TaskTokenCallbacks } from './ports.js';

/**
 * Fair scheduling (DESIGN §6): every account has its plan's number of concurrency slots. A run
 * waits `queued` until its account has a free slot, oldest first; it is `dispatched` when granted
 * and `processing` when compute starts. Accounts never share slots, so one account's backlog never
 * delays another's work. Every step here is safe to repeat.
 *
 * Admission: the deployment also admits only `runCapacity` runs at once (its limit on concurrent
 * container tasks over the tasks one run may run in parallel), taken and given back in the same
 * transactions as the slot, so no run starts tasks the deployment cannot place. A run the capacity
 * refuses marks its account as waiting; freed capacity goes to the waiting account holding the
 * fewest slots, among those to the one granted least recently (never: first), then to the one
 * whose oldest run is oldest. A per-account count is the fairness key rather than one queue
 * across accounts: an account's backlog then costs others nothing (its tenth run never goes
 * before another account's first), and one counter item with conditional increments keeps the
 * bound exact under any race.
 */
export interface SchedulingDeps {
  runs: RunStore;
  slots: SlotStore;
  accounts: AccountStore;
  callbacks: TaskTokenCallbacks;
  /** Runs the deployment admits at once (functions/workflows/admission.ts). */
  runCapacity: number;
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

const limitsFor = async (deps: SchedulingDeps, accountId: string): Promise<GrantLimits> => ({
  account: limitsOf(await requireAccount(deps.accounts, accountId)).concurrency,
  capacity: deps.runCapacity,
});

/** One grant; the granted workflow is woken (no token yet: it finds its slot held when it reaches AcquireSlot). */
async function grantAndWake(deps: SchedulingDeps, accountId: string, entry: SlotQueueEntry, limits: GrantLimits): Promise<GrantOutcome> {
  const outcome = await deps.slots.grant(accountId, entry, limits, nowIso());
  if (outcome === 'run_not_waiting') await deps.slots.dropEntry(accountId, entry.runId);
  if (outcome === 'granted' && entry.taskToken) await deps.callbacks.succeed(entry.taskToken, GRANTED);
  return outcome;
}

/** Grants free slots of the account to its oldest waiting runs and wakes their workflows. */
export async function dispatchWaiting(deps: SchedulingDeps, accountId: string): Promise<void> {
  const limits = await limitsFor(deps, accountId);
  let marked = false;
  for (let round = 0; round < MAX_DISPATCH_ROUNDS; round++) {
    const entry = await deps.slots.oldestWaiting(accountId);
    if (!entry) return;
    const outcome = await grantAndWake(deps, accountId, entry, limits);
    if (outcome === 'account_full' || (outcome === 'capacity_full' && marked)) return;
    if (outcome === 'capacity_full') {
      // Marked, then tried once more: a release before the mark left room for that try, one after it sees the mark.
      await deps.slots.markCapacityWaiter(accountId);
      marked = true;
    }
  }
  throw new Error(`Dispatch for account ${accountId} did not settle after ${MAX_DISPATCH_ROUNDS} rounds`);
}

interface Candidate extends SlotUse {
  accountId: string;
  entry: SlotQueueEntry;
  limits: GrantLimits;
}

/** Fewest slots held, then granted least recently (never first), then the oldest run (ids are time-ordered). */
const fairest = (a: Candidate, b: Candidate): number =>
  a.inUse - b.inUse || (a.lastGrantedAt ?? '').localeCompare(b.lastGrantedAt ?? '') || a.entry.runId.localeCompare(b.entry.runId);

/**
 * The accounts that could take freed capacity now, fairest first: those marked waiting for it and
 * the account that freed it. A mark whose account has nothing waiting is cleared (unless marked
 * again meanwhile); an account at its own slot limit keeps its mark for its own next release.
 */
async function capacityCandidates(deps: SchedulingDeps, releasedBy: string): Promise<Candidate[]> {
  const waiters = await deps.slots.capacityWaiters();
  const accountIds = new Set([releasedBy, ...waiters.map((waiter) => waiter.accountId)]);
  const found = await Promise.all(
    [...accountIds].map(async (accountId): Promise<Candidate | undefined> => {
      const entry = await deps.slots.oldestWaiting(accountId);
      const waiter = waiters.find((w) => w.accountId === accountId);
      if (!entry) {
        if (waiter) await deps.slots.clearCapacityWaiter(waiter);
        return undefined;
      }
      const [limits, use] = await Promise.all([limitsFor(deps, accountId), deps.slots.slotUse(accountId)]);
      return use.inUse < limits.account ? { accountId, entry, limits, ...use } : undefined;
    }),
  );
  return found.filter((c) => c !== undefined).sort(fairest);
}

/** Hands freed capacity (and the releasing account's freed slot) to waiting runs across accounts, fairest first. */
async function dispatchAcrossAccounts(deps: SchedulingDeps, releasedBy: string): Promise<void> {
  for (let round = 0; round < MAX_DISPATCH_ROUNDS; round++) {
    const [next] = await capacityCandidates(deps, releasedBy);
    if (!next) return;
    const outcome = await grantAndWake(deps, next.accountId, next.entry, next.limits);
    if (outcome === 'capacity_full') {
      // Other accounts' waiting runs are marked already; the releasing account's may not be.
      await deps.slots.markCapacityWaiter(next.accountId);
      return;
    }
  }
  throw new Error(`Dispatch across accounts did not settle after ${MAX_DISPATCH_ROUNDS} rounds`);
}

/** Gives a finished run's slot and capacity back (at most once) and hands them to the fairest waiting run. */
export async function releaseSlot(deps: SchedulingDeps, ref: AnalysisRef): Promise<void> {
  await deps.slots.release(ref, nowIso());
  await dispatchAcrossAccounts(deps, ref.accountId);
}
