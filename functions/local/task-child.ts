/**
 * The child side of a workflow task the local host runs as a process of its own (task-children.ts):
 * the handler gets the state's input from stdin; the outcome goes back on fd 3, the error by name
 * and message, which are what Step Functions' Retry and Catch match on.
 */
import { closeSync, writeSync } from 'node:fs';
import { text } from 'node:stream/consumers';

/** What the child reports. */
export type TaskOutcome = { ok: true; result?: unknown } | { ok: false; name: string; message: string };

export async function runTaskChild(handler: (input: unknown) => Promise<unknown>): Promise<never> {
  const input: unknown = JSON.parse(await text(process.stdin));
  let outcome: TaskOutcome;
  try {
    outcome = { ok: true, result: await handler(input) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    outcome = { ok: false, name, message };
  }
  writeSync(3, JSON.stringify(outcome));
  closeSync(3);
  // As Lambda freezes a function once it has answered: kept-alive sockets do not hold the process.
  process.exit(0);
}
