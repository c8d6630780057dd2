/**
 * Speech-to-text failed for this source. Thrown out of the signals step (or AwaitTranscript), it is a task failure:
 * Step Functions retries the step, then the run fails and is refunded (never a run without words
 * that silently claims there was no speech).
 */
export class TranscriptionFailed extends Error {
  override readonly name = 'TranscriptionFailed';
}
