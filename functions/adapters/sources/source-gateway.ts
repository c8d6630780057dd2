import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import type { MediaInspector } from '../../domain/uploads/ports.js';
import type { MediaFileWriter, ProviderPageResolver, SourceGateway, SourceOrigin, SourceReader } from '../../domain/sources/ports.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { downloadHttp, preflightHttp, type HttpSourceDeps } from './http-source.js';
import { fileRangeSource } from './range-bridge.js';
import { sourceError } from './source-errors.js';
import { resolveStorageLink } from './storage-links.js';
import { inTempDir } from './temp-files.js';
import { verifyVideo } from './verify-video.js';
import type { YtDlp } from './yt-dlp.js';

const GiB = 1024 ** 3;

export interface SourceReaderOptions {
  /** Every request to a storage link or trusted host goes through it (DESIGN §9). */
  outbound: OutboundClient;
  /** The upload probe, shared so that uploads and sources get one verdict. */
  inspector: MediaInspector;
  /** Provider pages' facts (the provider-resolver function: routes carry no yt-dlp). */
  providerPages: ProviderPageResolver;
  /** Default: os.tmpdir(). */
  tempRoot?: string | undefined;
  /** Default: no ceiling (SPEC: paid analyses have none; windows are the caller's). */
  maxDurationMs?: number | undefined;
  /** The most a preflight downloads from a source without Range support. Default 10 GiB (SPEC's largest source). */
  fallbackMaxBytes?: number | undefined;
  /** Whole downloads. Default 3 h. */
  downloadTimeoutMs?: number | undefined;
}

interface SourceGatewayOptions extends SourceReaderOptions {
  store: MediaFileWriter;
  /** Provider pages' downloads (the container image installs yt-dlp). */
  ytDlp: YtDlp;
}

/**
 * How sources are read (domain/sources/ports.ts): provider pages through the resolver, storage links in
 * their direct-download form and trusted hosts as given through the outbound client.
 */
function readingOf(options: SourceReaderOptions) {
  const { outbound, inspector, providerPages } = options;
  const tempRoot = options.tempRoot ?? tmpdir();
  const maxDurationMs = options.maxDurationMs ?? Number.MAX_SAFE_INTEGER;
  const http: HttpSourceDeps = {
    outbound,
    inspector,
    maxDurationMs,
    fallbackMaxBytes: options.fallbackMaxBytes ?? 10 * GiB,
    downloadTimeoutMs: options.downloadTimeoutMs ?? 3 * 3_600_000,
    tempRoot,
  };
  const viaYtDlp = (origin: SourceOrigin) => origin.kind === 'provider' && origin.provider.resolver === 'yt-dlp';
  const directUrl = (url: URL, origin: SourceOrigin) =>
    origin.kind === 'provider' ? resolveStorageLink(url, origin.provider, outbound) : Promise.resolve(url);

  const preflight: SourceReader['preflight'] = (url, origin) =>
    asSourceErrors(async () => (viaYtDlp(origin) ? providerPages.describe(url) : preflightHttp(http, await directUrl(url, origin))));
  return { http, tempRoot, maxDurationMs, viaYtDlp, directUrl, preflight };
}

/** The SourceReader: the facts of a source, nothing stored (no media store in its bundles). */
export function createSourceReader(options: SourceReaderOptions): SourceReader {
  return { preflight: readingOf(options).preflight };
}

/**
 * The SourceGateway: the preflight, and acquisition, which copies the source into a private
 * temporary directory, verifies it with the upload probe, stores it, and removes the directory
 * whatever happened.
 */
export function createSourceGateway(options: SourceGatewayOptions): SourceGateway {
  const { inspector, store, ytDlp } = options;
  const { http, tempRoot, maxDurationMs, viaYtDlp, directUrl, preflight } = readingOf(options);
  return {
    preflight,
    acquire: (url, origin, target) =>
      asSourceErrors(() =>
        inTempDir(tempRoot, async (dir) => {
          const tags = target.contentTagging ?? {};
          // A direct download of declared length is stored as it arrives; anything else once on disk.
          const streamingCopy = {
            copy: (body: Readable, size: number, type: string) => store.putStream(target.objectKey, body, size, type, tags),
            maxBytes: store.singlePutMaxBytes,
          };
          const file = viaYtDlp(origin)
            ? { ...(await ytDlp.download(url, dir, target.maxBytes)), streamed: false }
            : await downloadHttp(http, await directUrl(url, origin), dir, target.maxBytes, streamingCopy);
          // Verified and stored side by side, both reading the downloaded file: the upload does not
          // wait for the probe. A copy that fails verification is removed again.
          const [verified, stored] = await Promise.allSettled([
            verifyVideo(inspector, fileRangeSource(file.path, file.sizeBytes), maxDurationMs),
            file.streamed ? Promise.resolve() : store.putFile(target.objectKey, file.path, file.contentType, tags),
          ]);
          if (verified.status === 'rejected') {
            if (stored.status === 'fulfilled') await store.remove(target.objectKey);
            throw verified.reason;
          }
          if (stored.status === 'rejected') throw stored.reason;
          return { mediaKind: 'video' as const, durationMs: verified.value, sizeBytes: file.sizeBytes, title: file.title };
        }),
      ),
  };
}

async function asSourceErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw sourceError(error);
  }
}
