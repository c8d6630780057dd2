/**
 * `node --import tsx test/infra/shared-assembly-synth.ts <outdir> <statusFile>`: the one fully
 * bundled synthesis of an infra test run (see shared-assembly-setup.ts), in a process of its own so
 * that test files that do not read it run meanwhile. Writes `{ ok: true, offline }` or
 * `{ ok: false, error }` to the status file once the assembly in `outdir` is complete (or synthesis
 * failed); `offline` says whether it ran under test/infra/offline-guard.js.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { isOffline } from './offline.js';
import { synthesize } from './synth.js';

const args = process.argv.slice(2);
if (args.length !== 2) throw new Error('usage: shared-assembly-synth.ts <outdir> <statusFile>');
const [outdir, statusFile] = args as [string, string];

/** Written whole, then renamed: a reader never sees half a status. */
function writeStatus(status: { ok: true; offline: boolean } | { ok: false; error: string }): void {
  writeFileSync(`${statusFile}.partial`, JSON.stringify(status));
  renameSync(`${statusFile}.partial`, statusFile);
}

try {
  const started = Date.now();
  synthesize({ outdir });
  console.log(`Synthesized the shared assembly in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  writeStatus({ ok: true, offline: isOffline() });
} catch (error) {
  writeStatus({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
