/**
 * Speech-to-text failed for this source. Thrown out of the signals step, it is a task failure:
 * Step Functions retries the step, then the run fails and is refunded (never a run without words
 * that silently claims there was no speech).
 */
export class TranscriptionFailed extends Error {
  override readonly name = 'TranscriptionFailed';
}

/**
 * The transcription job is still running when this task's wait budget is spent. A retry of the
 * task finds the same job (its name is derived from the source) and waits on.
 */
export class TranscriptionNotReady extends Error {
  override readonly name = 'TranscriptionNotReady';
}
