/**
 * Writes the console's build (console/build.ts) into the directory given as the one argument: the
 * console bucket's deployment stages it at synth (infra/constructs/console-edge.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildConsole } from '../console/build.js';

const [outputDir] = process.argv.slice(2);
if (!outputDir) throw new Error('Usage: write-console.ts <output directory>');
for (const asset of await buildConsole()) {
  const file = join(outputDir, asset.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, asset.body);
}
