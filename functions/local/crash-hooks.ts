/**
 * Test hooks of the local host (never read by the AWS composition): LOCAL_CRASH_AFTER names a
 * moment at which the host kills itself with SIGKILL, as the OOM killer would, so the crash tests
 * can prove what survives it (test/integration/idempotency-crash.test.ts,
 * test/reliability/crash.test.ts). Start-up reconciliation goes through none of them, so a host
 * restarted with the variable still resumes work; the tests restart without it.
 *
 * - `run_reserved`: a request has reserved a run's credits and is about to start its workflow,
 *   before it answers. (DynamoDB Local, which ends with the host, keeps the reservation it has
 *   just acknowledged: it is sent SIGTERM, not SIGKILL, see host-processes.ts.)
 * - `task:<State>` (e.g. `task:PersistResults`): a task state of a workflow has done its work (its
 *   writes are made) and the workflow has not moved on. The first time only.
 */
import type { LocalWorkflows, TaskWrapper } from './local-workflows.js';

const CRASH_AFTER_VARIABLE = 'LOCAL_CRASH_AFTER';

const crashNow = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: the process was killed');
};

/** The workflows API handlers start, killing the host at `run_reserved` when asked to. */
export function crashAfterReservation(workflows: LocalWorkflows): LocalWorkflows {
  if (process.env[CRASH_AFTER_VARIABLE] !== 'run_reserved') return workflows;
  return new Proxy(workflows, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (property !== 'startAnalysis') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return (): Promise<never> => crashNow();
    },
  });
}

/** What runs around every task state: the kill after `task:<State>`, when asked for one. */
export function crashAfterTask(): TaskWrapper | undefined {
  const state = /^task:(\w+)$/.exec(process.env[CRASH_AFTER_VARIABLE] ?? '')?.[1];
  if (!state) return undefined;
  return async (_workflow, stateName, run) => {
    const output = await run();
    if (stateName === state) crashNow();
    return output;
  };
}
