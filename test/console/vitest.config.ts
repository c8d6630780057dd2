import { defineConfig } from 'vitest/config';

/** `npm run test:console`: the console in headless Chromium (Debian's) against a local host of its own. */
export default defineConfig({
  test: {
    name: 'console',
    include: ['test/console/**/*.test.ts'],
    // One browser and one host, driven page after page.
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    env: { LOCAL_SANDBOX: 'off' },
  },
});
