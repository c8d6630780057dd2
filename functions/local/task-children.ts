import type { Readable, Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { join } from 'node:path';
import type { TaskOutcome } from './task-child.js';
import type { UnitProcesses } from './unit-processes.js';

const functionsDir = join(import.meta.dirname, '..');

/** What Lambda reports when a function's process exits before it answers. */
class FunctionExited extends Error {
  override readonly name = 'Runtime.ExitError';
}

/**
 * A workflow task's handler run as a process of its own per invocation, inside the unit's sandbox
 * (unit-processes.ts): for the tasks that start binaries or write files, whose contract the host's
 * own process cannot keep. The handler module is bundled with the child side (task-child.ts); its
 * result, or its error with the error's name, comes back as the in-process handler's would.
 */
export function taskInChild(processes: UnitProcesses, unit: string, handlerModule: string): (input: unknown) => Promise<unknown> {
  const contents = [
    `import { handler } from ${JSON.stringify(join(functionsDir, `${handlerModule}.ts`))};`,
    `import { runTaskChild } from ${JSON.stringify(join(import.meta.dirname, 'task-child.ts'))};`,
    'await runTaskChild(handler);',
  ].join('\n');
  return async (input) => {
    const bundle = await processes.bundles.of(handlerModule.replaceAll('/', '-'), { contents });
    const child = await processes.start(unit, bundle, {}, ['pipe', 'inherit', 'inherit', 'pipe']);
    const [stdin, , , results] = child.stdio as unknown as [Writable, null, null, Readable];
    stdin.end(JSON.stringify(input));
    const [report, exit] = await Promise.all([
      text(results),
      new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', (code) => resolve(code))),
    ]);
    if (!report) throw new FunctionExited(`${unit} exited with ${exit ?? 'a signal'} before it answered`);
    const outcome = JSON.parse(report) as TaskOutcome;
    if (outcome.ok) return outcome.result;
    throw Object.assign(new Error(outcome.message), { name: outcome.name });
  };
}
