import { defineConfig } from 'vitest/config';
import { InfraSequencer } from './test/infra/sequencer.js';

export default defineConfig({
  test: {
    // The default order, but infra files that wait for the shared synthesis go last among infra's.
    sequence: { sequencer: InfraSequencer },
    // Two files at a time, even on 2 cores (vitest's default there is one): integration files
    // mostly wait on the shared host and on ffmpeg, so a second file overlaps that waiting.
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // One local host (DynamoDB Local, s3rver, ffmpeg) serves every integration file.
          globalSetup: ['test/helpers/local-host-setup.ts'],
          // The contract test: every response the suite receives is validated against openapi.json.
          setupFiles: ['test/helpers/openapi-contract-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // The hosts the tests start run unsandboxed like the shared one (local-host-setup.ts); sandbox.test.ts asks for it.
          env: { LOCAL_SANDBOX: 'off' },
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // One fully bundled synthesis of the app, in a child process, for every infra file that reads it.
          globalSetup: ['test/infra/shared-assembly-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'permissions',
          include: ['test/permissions/**/*.test.ts'],
          // After every other project: it checks the AWS calls the integration project recorded
          // against the roles of the infra project's synthesis (test/helpers/iam-policy.ts).
          sequence: { groupOrder: 1 },
          // Its files share one worker and module state, so they share one template (test/permissions/template.ts).
          isolate: false,
          maxWorkers: 1,
          // Waiting for the shared synthesis, or synthesizing when the infra project is not in the run.
          testTimeout: 900_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
