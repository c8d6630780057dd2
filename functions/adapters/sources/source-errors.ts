import { ApiError } from '../../domain/errors.js';
import { OutboundRequestFailed, OutboundRequestRefused } from '../outbound/errors.js';

/**
 * Outbound failures as API errors (DESIGN §9): a refused target is the client's to fix (422
 * untrusted_source_url), a failed exchange makes the source unreadable. Messages name the reason
 * only: the outbound error's own message names the URL's path, which may be a share token.
 */
export function sourceError(error: unknown): unknown {
  // A read cut short while its stream was destroyed surfaces as an AggregateError of both.
  if (error instanceof AggregateError && error.errors.length) return sourceError(error.errors[0]);
  const reason = error instanceof OutboundRequestRefused || error instanceof OutboundRequestFailed ? error.reason.replaceAll('_', ' ') : '';
  if (error instanceof OutboundRequestRefused) {
    return new ApiError('untrusted_source_url', `The source, or a redirect it answered with, is not allowed (${reason}).`, 'source_url');
  }
  if (error instanceof OutboundRequestFailed) {
    return error.reason === 'too_large'
      ? new ApiError('source_too_large', 'The source is larger than this request accepts.', 'source_url')
      : new ApiError('source_unreadable', `The source could not be fetched (${reason}).`, 'source_url');
  }
  return error;
}
