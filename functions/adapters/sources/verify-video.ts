import { ApiError } from '../../domain/errors.js';
import { ProbeTransportError } from '../../domain/uploads/media-probe.js';
import type { Inspection, MediaInspector } from '../../domain/uploads/ports.js';
import type { UploadFailureCode } from '../../domain/uploads/model.js';
import { openRangeBridge, type RangeSource } from './range-bridge.js';
import { sourceError } from './source-errors.js';

/** What a failed inspection means for a source (the upload wording of the inspector does not fit). */
const verdictMessages: Partial<Record<UploadFailureCode, string>> = {
  no_video_stream: 'The source has no video stream; one-off analyses take video (audio-only sources are refused).',
  truncated_media: 'The source ends before its media does: it is incomplete.',
  inspection_timeout: 'The source could not be verified in time.',
};

/**
 * The upload probe's verdict on a source (adapters/media/ffprobe-inspector.ts, so uploads and
 * sources share one rule), read through a loopback range bridge. Returns the duration in ms;
 * throws ApiError source_unreadable for anything but decodable video, or the source's own read
 * failure (an outbound error, for the caller to map) when one voided the probe.
 */
export async function verifyVideo(
  inspector: MediaInspector,
  source: RangeSource,
  maxDurationMs: number,
  options: { prefixOnly?: boolean } = {},
): Promise<number> {
  const bridge = await openRangeBridge(source);
  try {
    let inspection: Inspection;
    try {
      inspection = await inspector.inspect(bridge.url, 'video', { maxDurationMs, prefixOnly: options.prefixOnly ?? false });
    } catch (error) {
      // ffprobe could not read through the bridge: the source's failure is the cause, if it had one.
      if (bridge.failure !== undefined) throw readFailure(bridge.failure);
      if (error instanceof ProbeTransportError) throw unreadable('The source could not be read.');
      throw error;
    }
    if (bridge.failure !== undefined) throw readFailure(bridge.failure);
    if (!inspection.ok) {
      throw unreadable(verdictMessages[inspection.error.code] ?? 'The source is not readable video (an unsupported container or codec, or damaged media).');
    }
    return inspection.durationMs;
  } finally {
    await bridge.close();
  }
}

export const unreadable = (message: string): ApiError => new ApiError('source_unreadable', message, 'source_url');

/** A failed read of the source, as an API error: an outbound failure says why, anything else is unreadable. */
function readFailure(error: Error): unknown {
  const mapped = sourceError(error);
  return mapped instanceof ApiError ? mapped : unreadable('The source could not be read.');
}
