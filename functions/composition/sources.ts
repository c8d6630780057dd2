import { config } from '../config.js';
import { resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import { ffprobeInspector, spawnFfprobe } from '../adapters/media/ffprobe-inspector.js';
import { createOutboundClient } from '../adapters/outbound/outbound-client.js';
import { providerPageResolver } from '../adapters/sources/provider-resolution.js';
import { createSourceReader, type SourceReaderOptions } from '../adapters/sources/source-gateway.js';
import type { SourceReader } from '../domain/sources/ports.js';
import { lazy } from '../shared/memo.js';
import { accounts } from './accounts.js';
import { hostProviderResolver, outboundPolicy } from './host.js';

/** A remote source is slower to probe than our own bucket: at least this long, whatever PROBE_TIMEOUT_MS says. */
const SOURCE_PROBE_BUDGET_MS = 60_000;

const PREFLIGHT_FALLBACK_MAX_BYTES = 256 * 1024 ** 2;

/** How this deployment reads sources (DESIGN §10): the outbound client, the probe and the provider-resolver function. */
export const sourceReaderOptions = lazy((): SourceReaderOptions => {
  const cfg = config();
  return {
    outbound: createOutboundClient(outboundPolicy()),
    inspector: ffprobeInspector(
      spawnFfprobe(() => resolveFfprobePath(cfg.FFPROBE_PATH)),
      Math.max(cfg.PROBE_TIMEOUT_MS, SOURCE_PROBE_BUDGET_MS),
    ),
    providerPages: providerPageResolver(hostProviderResolver),
    // A preflight answers within an API request: a server without byte ranges is measured only
    // if the whole file is small enough to fetch in that time.
    fallbackMaxBytes: PREFLIGHT_FALLBACK_MAX_BYTES,
  };
});

/** Preflights of one-off analysis sources: no media store (acquisition has its own: acquisition.ts). */
export const sourceReader = lazy((): SourceReader => createSourceReader(sourceReaderOptions()));

/** Preflight and quote: the source gateway probes, and nothing is stored (no run store, no workflows in these bundles). */
export const sourceProbing = lazy(() => ({ accounts: accounts(), sources: sourceReader(), ...outboundPolicy() }));
