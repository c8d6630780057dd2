/**
 * The source could not be measured (unreadable, not media, timed out). The run pipeline matches
 * on the name (`SignalExtractionError`) to fail the run as `source_unreadable` and refund it.
 */
export class SignalExtractionError extends Error {
  override readonly name = 'SignalExtractionError';
}
