/**
 * The retry schedule of a webhook delivery (Standard Webhooks, DESIGN 10): attempt 1 at once,
 * then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the attempt before; after the 8th
 * failed attempt the delivery is `failed` (about 27.5 hours after the event).
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt, from the end of the attempt before (the first: from the event). */
export const retryDelaysMs = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;

export const MAX_SCHEDULED_ATTEMPTS = retryDelaysMs.length;

/** An attempt succeeds on any 2xx answered within this time (the transport's whole-exchange bound). */
export const ATTEMPT_TIMEOUT_MS = 15 * SECOND;

/**
 * How long to wait after `attemptsMade` failed scheduled attempts before the next one; null
 * when the schedule is spent. `scale` compresses the schedule (tests, benchmarks: 0.001 turns
 * 10 h into 36 s); 1 on every real deployment.
 */
export function nextAttemptDelayMs(attemptsMade: number, scale = 1): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError('attemptsMade is a whole number from 1');
  if (!(scale > 0 && scale <= 1)) throw new RangeError('scale is in (0, 1]');
  const delay = retryDelaysMs[attemptsMade];
  return delay === undefined ? null : Math.round(delay * scale);
}
