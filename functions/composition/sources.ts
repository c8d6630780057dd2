import { config } from '../config.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../adapters/ffmpeg-binaries.js';
import { ffprobeInspector, spawnFfprobe } from '../adapters/media/ffprobe-inspector.js';
import { s3FileWriter } from '../adapters/media/s3-file-writer.js';
import { createOutboundClient } from '../adapters/outbound/outbound-client.js';
import { createSourceGateway } from '../adapters/sources/source-gateway.js';
import { ytDlp } from '../adapters/sources/yt-dlp.js';
import type { Account } from '../domain/ports.js';
import { classifySourceUrl } from '../domain/sources/classify.js';
import type { SourceGateway } from '../domain/sources/ports.js';
import { lazy } from '../shared/memo.js';
import { s3 } from './media.js';

/** A remote source is slower to probe than our own bucket: at least this long, whatever PROBE_TIMEOUT_MS says. */
const SOURCE_PROBE_BUDGET_MS = 60_000;

const PREFLIGHT_FALLBACK_MAX_BYTES = 256 * 1024 ** 2;

/** Preflight and acquisition of one-off analysis sources (DESIGN §10). */
export const sourceGateway = lazy((): SourceGateway => {
  const cfg = config();
  return createSourceGateway({
    outbound: createOutboundClient({ allowLoopback: cfg.LOCAL_ALLOW_LOOPBACK_TARGETS }),
    inspector: ffprobeInspector(spawnFfprobe(() => resolveFfprobePath(cfg.FFPROBE_PATH)), Math.max(cfg.PROBE_TIMEOUT_MS, SOURCE_PROBE_BUDGET_MS)),
    store: s3FileWriter(s3(), cfg.MEDIA_BUCKET, { partSizeBytes: cfg.MULTIPART_PART_SIZE_BYTES }),
    ytDlp: ytDlp({ binaryPath: cfg.YT_DLP_PATH, ffmpegPath: () => resolveFfmpegPath(cfg.FFMPEG_PATH) }),
    // A preflight answers within an API request: a server without byte ranges is measured only
    // if the whole file is small enough to fetch in that time.
    fallbackMaxBytes: PREFLIGHT_FALLBACK_MAX_BYTES,
  });
});

/** A source URL classified for an account under this deployment's loopback rule. */
export const classifyForAccount = (account: Pick<Account, 'trustedHosts'>, rawUrl: string) =>
  classifySourceUrl(rawUrl, account.trustedHosts, { allowLoopback: config().LOCAL_ALLOW_LOOPBACK_TARGETS });
