/** A command's own refusal of its arguments (exit 2), before anything reaches the API. Its own module: the console's batch CSV reads it in the browser too. */
export class UsageError extends Error {
  override name = 'UsageError';
}
