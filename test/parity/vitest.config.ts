/**
 * `npm run test:parity`: the run-time parity suite, apart from `npm test` (its own CI step in
 * .ci/run): the paths that reach a container task or a disk-writing function, on a local host
 * whose every unit runs inside its sandbox (functions/local/sandbox, DESIGN §11). See
 * docs/tests.md, "Run-time parity".
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: join(import.meta.dirname, '..', '..'),
    include: ['test/parity/**/*.test.ts'],
    // One host for the suite; its paths run side by side (describe.concurrent).
    maxWorkers: 1,
    testTimeout: 360_000,
    hookTimeout: 300_000,
  },
});
