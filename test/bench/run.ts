import { benchApi } from './api.js';
import { benchBundles } from './bundles.js';

/**
 * `npm run bench`: prints the service's speed and size figures. Figures, never pass/fail:
 * timing assertions flake on a shared machine. BENCH_ONLY=api,bundles picks sections.
 */
const sections: Record<string, () => Promise<void>> = {
  async api() {
    console.log('\n## API latency on the local host (autocannon)');
    console.table(await benchApi());
  },
  async bundles() {
    console.log('\n## Lambda bundle sizes (cdk synth, minified ESM)');
    console.table(await benchBundles());
  },
};

const only = process.env.BENCH_ONLY?.split(',');
for (const [name, run] of Object.entries(sections)) {
  if (!only || only.includes(name)) await run();
}
