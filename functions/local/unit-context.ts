/**
 * Which deployed unit (functions/runtime/contracts.ts `units`) the code running here and now
 * belongs to: the local host sets it where it dispatches (server.ts: the authorizer and routes;
 * local-workflows.ts: tasks), a child process it starts for a unit names it for the whole process.
 * The AWS call recorder attributes calls by it, and the sandbox (sandbox/) launches a unit's child
 * processes inside that unit's contract by it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { units } from '../runtime/contracts.js';

const unitContext = new AsyncLocalStorage<string>();
let processUnit: string = units.host;

/** The unit code running here and now runs for; the host itself outside any dispatch. */
export const currentUnit = (): string => unitContext.getStore() ?? processUnit;

/** Names the unit of everything this process runs outside a dispatch (a unit's own child process). */
export function setProcessUnit(unit: string): void {
  processUnit = unit;
}

/** Runs `fn` as `unit`. */
export function inUnit<T>(unit: string, fn: () => T): T {
  return unitContext.run(unit, fn);
}

/** `fn`, each of whose calls runs as `unit`. */
export function asUnit<A extends unknown[], R>(unit: string, fn: (...args: A) => R): (...args: A) => R {
  return (...args) => inUnit(unit, () => fn(...args));
}
