import { benchApi } from './api.js';
import { benchBacklog } from './backlog.js';
import { benchBatches } from './batches.js';
import { benchBundles } from './bundles.js';
import { benchChunking } from './chunking.js';
import { benchCosts } from './costs.js';
import { benchFraming, benchRender } from './framing.js';
import { benchMeaning } from './meaning.js';
import { benchOneOff } from './one-off.js';
import { benchPipeline } from './pipeline.js';
import { benchSignals, signalQuality } from './signals.js';
import { benchSpeech } from './speech.js';
import { benchWebhooks } from './webhooks.js';

/** Prints a section's heading, then (once measured) its figures as a table. */
async function section(heading: string, figures: () => Promise<object[]>): Promise<void> {
  console.log(`\n## ${heading}`);
  console.table(await figures());
}

/**
 * `npm run bench`: prints the service's speed and size figures. Figures, never pass/fail:
 * timing assertions flake on a shared machine. BENCH_ONLY=api,bundles picks sections.
 */
const sections: Record<string, () => Promise<void>> = {
  api: () => section('API latency on the local host (autocannon)', benchApi),
  signals: async () => {
    await section(
      'Signal extraction: 10-minute H.264 sources (720p x264 ultrafast and veryfast, 1080p veryfast) vs a bare ffmpeg decode; target ratio <= 0.5',
      async () => [
        await benchSignals({ preset: 'ultrafast' }),
        await benchSignals({ preset: 'veryfast' }),
        await benchSignals({ preset: 'veryfast', height: 1080 }),
      ],
    );
    await section('Signal quality on the labelled fixtures (transitions, overlapping sounds)', signalQuality);
  },
  speech: () =>
    section(
      'Local transcribers on real read speech (LibriVox), espeak-ng and flite voices; targets: WER <= 5% real, <= 0.05 CPU-s/audio-s unaligned and <= 0.15 aligned, median onset error <= 50 ms, RSS <= 500 MB',
      benchSpeech,
    ),
  pipeline: () => section('A whole find_moments run through the local host vs a bare decode of the same file', async () => [await benchPipeline()]),
  'one-off': () =>
    section(
      'One-off analysis of a 10-minute 1280x720 source served from loopback: acquisition vs a plain download, whole analysis vs a bare decode',
      async () => [await benchOneOff()],
    ),
  chunking: () =>
    section('One 30-minute 640x360 find_moments run with chunking on (CHUNK_SECONDS=600) and off (3600), on this machine', async () => {
      const { sourceGenerationSeconds, figures, speedUp } = await benchChunking();
      console.log(`source made in ${sourceGenerationSeconds} s (less, or 0, when an earlier run left its segment or the file in the OS temp dir)`);
      console.log(`speed-up of chunking on (off runSeconds / on runSeconds): ${speedUp}x`);
      return figures;
    }),
  costs: async () => {
    const { drivers, perMinute, prices } = await benchCosts();
    await section('AWS cost drivers per run, counted on the local host: Step Functions state transitions, DynamoDB writes', () => Promise.resolve(drivers));
    await section(`AWS cost per analysed minute of the 30-minute run, by engine configuration (${prices}: test/bench/aws-prices.ts)`, () =>
      Promise.resolve(perMinute),
    );
  },
  batches: () => section('A 100-item scanner batch of 5 s find_moments runs on a creator account: accept, read, drain', async () => [await benchBatches()]),
  backlog: () =>
    section(
      'Admission: 200 long runs (12 chunk tasks each) from 20 creator accounts, submitted account by account, drained under a 40-task limit (simulated workflows; the admission and table code of the hosts on DynamoDB Local)',
      async () => [await benchBacklog()],
    ),
  webhooks: () =>
    section(`Webhooks on the local host: event-to-delivery latency, and 1,000 events to 3 endpoints at once (signed, verified by the receiver)`, benchWebhooks),
  framing: () => section('Auto framing accuracy on the moving-subject fixture (9:16, production renderer and face detector)', benchFraming),
  render: () => section('Render wall time vs the same ffmpeg command run alone (30 s moment, 640x360 source over loopback)', benchRender),
  meaning: () =>
    section(
      "Instructions matched by meaning: 12 paraphrased queries against 12 transcript lines, exact words vs meaning; the word-vector table's cost",
      benchMeaning,
    ),
  bundles: () => section(`Lambda bundles (cdk synth, minified ESM, SDK from the runtime): KB and median cold import in 5 fresh processes`, benchBundles),
};

const only = process.env.BENCH_ONLY?.split(',');
for (const [name, run] of Object.entries(sections)) {
  if (!only || only.includes(name)) await run();
}
