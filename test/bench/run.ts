import { benchApi } from './api.js';
import { benchBundles } from './bundles.js';
import { benchPipeline } from './pipeline.js';
import { benchSignals } from './signals.js';

/**
 * `npm run bench`: prints the service's speed and size figures. Figures, never pass/fail:
 * timing assertions flake on a shared machine. BENCH_ONLY=api,bundles picks sections.
 */
const sections: Record<string, () => Promise<void>> = {
  async api() {
    console.log('\n## API latency on the local host (autocannon)');
    console.table(await benchApi());
  },
  async signals() {
    console.log('\n## Signal extraction: one 10-minute 1280x720 H.264 source vs a bare ffmpeg decode');
    console.table([await benchSignals()]);
  },
  async pipeline() {
    console.log('\n## A whole find_moments run through the local host vs a bare decode of the same file');
    console.table([await benchPipeline()]);
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
