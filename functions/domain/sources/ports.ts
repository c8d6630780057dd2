import type { Readable } from 'node:stream';

/**
 * Sources of one-off analyses (SPEC "One-off analysis", DESIGN §10): a URL is classified before
 * any connection (classify.ts), measured without being stored (preflight) and copied into the
 * private media bucket (acquire). Adapters live in functions/adapters/sources.
 */

export type ProviderKind = 'recorded_video' | 'social' | 'meeting' | 'storage';

export interface BuiltInProvider {
  readonly id: string;
  readonly name: string;
  readonly kind: ProviderKind;
  /** Exact hostnames (lower case, no trailing dot). */
  readonly hostnames: readonly string[];
  /** An explicit, anchored rule for providers whose hosts carry a bucket or tenant label (S3, GCS, SharePoint, Zoom). */
  readonly hostPattern?: RegExp;
  /** How a page URL becomes media: yt-dlp for sites, the direct-download form for storage links. */
  readonly resolver: 'yt-dlp' | 'storage-link';
}

export type SourceOrigin = { kind: 'provider'; provider: BuiltInProvider } | { kind: 'trusted_host'; host: string };

/** What a response may show about a source: never the URL (DESIGN 10: `source: {provider, host, duration_ms}`). */
export interface SourceFacts {
  mediaKind: 'video';
  durationMs: number;
  sizeBytes: number | null;
  title: string | null;
}

interface AcquireTarget {
  objectKey: string;
  maxBytes: number;
  /** S3 object tags of the stored copy (the retention class). */
  contentTagging?: Record<string, string>;
}

/**
 * Provider pages (recorded video, social, meeting) described without a download: the
 * provider-resolver function, which carries yt-dlp, on AWS; the same handler as a child process locally.
 */
export interface ProviderPageResolver {
  /**
   * The page's facts. ApiError('source_unreadable') (422) for a page that is no single recorded
   * video; ApiError('provider_unavailable') (503) when it cannot be resolved now (not in time, or no yt-dlp).
   */
  describe(url: URL): Promise<SourceFacts>;
}

/** What submissions, preflights and quotes need of a source: its facts, nothing stored. */
export interface SourceReader {
  /** Measures the source without storing it. Throws ApiError('source_unreadable') (422) when a permitted source yields no decodable video (audio-only included). */
  preflight(url: URL, origin: SourceOrigin): Promise<SourceFacts>;
}

/** The AcquireSource step's gateway: the preflight's reading of sources, and the copy into the media store. */
export interface SourceGateway extends SourceReader {
  /**
   * Copies the whole source into the media store at objectKey (at most maxBytes, else
   * ApiError('source_too_large')), verifies it is decodable video, removes every temporary file,
   * and returns the facts of the stored copy.
   */
  acquire(url: URL, origin: SourceOrigin, target: AcquireTarget): Promise<SourceFacts & { sizeBytes: number }>;
}

/** Writes a local file into the media bucket (the acquired copy of a source). */
export interface MediaFileWriter {
  putFile(key: string, path: string, contentType: string, tags: Record<string, string>): Promise<void>;
  /** A body of known length as one PUT, while it arrives (at most singlePutMaxBytes). */
  putStream(key: string, body: Readable, sizeBytes: number, contentType: string, tags: Record<string, string>): Promise<void>;
  readonly singlePutMaxBytes: number;
  remove(key: string): Promise<void>;
}
