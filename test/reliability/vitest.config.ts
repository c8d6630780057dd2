/**
 * `npm run test:reliability`: the reliability suite, apart from `npm test` (its own CI step in
 * .ci/run; about 7 minutes on two cores). Properties derived from the code (the route table, the
 * request schemas), probed over HTTP on real local hosts: cross-account access, schema-driven
 * fuzzing, idempotency and wallet races, a malformed-media corpus, and SIGKILL at several moments
 * of a run. See docs/reliability.md.
 */
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: join(import.meta.dirname, '..', '..'),
    include: ['test/reliability/**/*.test.ts'],
    // One shared host for the files that probe it; the crash tests start their own.
    globalSetup: ['test/reliability/setup.ts'],
    // Two files at a time: most of the time is spent in the hosts (child processes), not in the workers.
    maxWorkers: 2,
    // The crash moments run side by side (describe.concurrent), two at a time.
    maxConcurrency: 2,
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // The shared host's clean stop, checked at teardown.
    teardownTimeout: 60_000,
    // The crash tests' own hosts too: the API's behaviour, not the run-time contracts (the parity suite's).
    env: { LOCAL_SANDBOX: 'off' },
  },
});
