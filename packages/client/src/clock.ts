import { setTimeout as delay } from 'node:timers/promises';

/** Time as the helpers see it; tests pass a fake one so polls and backoffs take no real time. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** In [0, 1): jitter. */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
  random: () => Math.random(),
};
