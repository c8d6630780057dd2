import { describe, expect, it } from 'vitest';
import { MAX_SCHEDULED_ATTEMPTS, nextAttemptDelayMs, retryDelaysMs } from '../../../../functions/domain/webhooks/schedule.js';

const s = 1_000;
const min = 60 * s;
const h = 60 * min;

describe('the webhook retry schedule (Standard Webhooks)', () => {
  it('is: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over about 27.5 hours', () => {
    expect(retryDelaysMs).toEqual([0, 5 * s, 5 * min, 30 * min, 2 * h, 5 * h, 10 * h, 10 * h]);
    expect(MAX_SCHEDULED_ATTEMPTS).toBe(8);
    const spanMs = retryDelaysMs.reduce((sum, delay) => sum + delay, 0);
    expect(spanMs).toBe(27 * h + 35 * min + 5 * s);
  });

  it('gives the wait after each failed attempt, and null once the 8th has failed', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((made) => nextAttemptDelayMs(made))).toEqual([5 * s, 5 * min, 30 * min, 2 * h, 5 * h, 10 * h, 10 * h]);
    expect(nextAttemptDelayMs(8)).toBeNull();
    expect(nextAttemptDelayMs(9)).toBeNull();
  });

  it('compresses by a scale for tests (whole milliseconds), and refuses nonsense', () => {
    expect(nextAttemptDelayMs(1, 0.001)).toBe(5);
    expect(nextAttemptDelayMs(6, 0.001)).toBe(36_000);
    expect(nextAttemptDelayMs(2, 0.5)).toBe(150_000);
    expect(nextAttemptDelayMs(8, 0.001)).toBeNull();
    for (const scale of [0, -1, 2, Number.NaN]) expect(() => nextAttemptDelayMs(1, scale)).toThrow(RangeError);
    for (const made of [0, -1, 1.5]) expect(() => nextAttemptDelayMs(made)).toThrow(RangeError);
  });
});
