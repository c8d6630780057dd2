import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalDeliveryScheduler } from '../../../functions/local/webhook-scheduler.js';
import type { WebhookDeliveryRecord } from '../../../functions/domain/webhooks/model.js';
import { ACCOUNT_ID } from '../../helpers/unit-fixtures.js';

const pending = (deliveryId: string, nextAttemptAt: Date, attempts = 1, createdAt = new Date(0)): WebhookDeliveryRecord => ({
  deliveryId,
  accountId: ACCOUNT_ID,
  endpointId: 'whe_1',
  eventId: 'evt_1',
  eventType: 'run.completed',
  payload: '{}',
  status: 'pending',
  attempts: Array.from({ length: attempts }, () => ({ at: createdAt.toISOString(), statusCode: 500, durationMs: 1 })),
  nextAttemptAt: nextAttemptAt.toISOString(),
  createdAt: createdAt.toISOString(),
  updatedAt: createdAt.toISOString(),
});

const schedulers: LocalDeliveryScheduler[] = [];
afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop();
  vi.useRealTimers();
});

function make(due: WebhookDeliveryRecord[], attempt: (accountId: string, deliveryId: string) => Promise<unknown>, options: { concurrency?: number } = {}) {
  const listDue = vi.fn((at: string) => Promise.resolve(due.filter((d) => d.nextAttemptAt! <= at)));
  const warn = vi.fn();
  const scheduler = new LocalDeliveryScheduler({ deliveries: { listDue }, attempt, warn, sweepIntervalMs: 1_000, ...options });
  schedulers.push(scheduler);
  return { scheduler, listDue, warn };
}

describe('LocalDeliveryScheduler', () => {
  it('at start arms every pending delivery due before the next sweep (overdue ones at once), and wakes each at its time', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-02T00:00:00.000Z') });
    const now = Date.now();
    const woken: [string, number][] = [];
    const { scheduler } = make(
      [
        pending('dlv_overdue', new Date(now - 60_000)),
        pending('dlv_soon', new Date(now + 400)),
        pending('dlv_fresh', new Date(now), 0, new Date(now)),
        pending('dlv_later', new Date(now + 60_000)),
      ],
      (_, id) => Promise.resolve(woken.push([id, Date.now() - now])),
    );
    expect(await scheduler.start()).toBe(3);
    await vi.advanceTimersByTimeAsync(500);
    expect(woken).toEqual([
      ['dlv_overdue', 0],
      ['dlv_fresh', 0],
      ['dlv_soon', 400],
    ]);
  });

  it('periodic sweeps leave alone a delivery whose fan-out is attempting it (fresh, no attempt yet)', async () => {
    vi.useFakeTimers({ now: new Date('2026-01-02T00:00:00.000Z') });
    const woken: string[] = [];
    const due: WebhookDeliveryRecord[] = [];
    const { scheduler } = make(due, (_, id) => Promise.resolve(woken.push(id)));
    await scheduler.start();
    due.push(pending('dlv_fresh', new Date(Date.now()), 0, new Date(Date.now())), pending('dlv_retry', new Date(Date.now())));
    await vi.advanceTimersByTimeAsync(1_100);
    expect(woken).toEqual(['dlv_retry']);
  });

  it('schedule() arms a timer (the latest call wins); one attempt per delivery at a time, a wake-up meanwhile runs after it', async () => {
    let release: () => void = () => undefined;
    const started: string[] = [];
    const { scheduler } = make([], (_, id) => {
      started.push(id);
      return new Promise<void>((resolve) => (release = resolve));
    });
    await scheduler.schedule(ACCOUNT_ID, 'dlv_a', new Date(Date.now() + 10_000));
    await scheduler.schedule(ACCOUNT_ID, 'dlv_a', new Date());
    await vi.waitFor(() => expect(started).toEqual(['dlv_a']));
    await scheduler.schedule(ACCOUNT_ID, 'dlv_a', new Date());
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toEqual(['dlv_a']);
    release();
    await vi.waitFor(() => expect(started).toEqual(['dlv_a', 'dlv_a']));
    release();
  });

  it('runs at most `concurrency` attempts at once; a failed attempt is logged, not thrown', async () => {
    let inFlight = 0;
    let most = 0;
    const { scheduler, warn } = make(
      [],
      async (_, id) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        if (id === 'dlv_3') throw new Error('table down');
      },
      { concurrency: 2 },
    );
    for (let i = 0; i < 6; i++) await scheduler.schedule(ACCOUNT_ID, `dlv_${i}`, new Date());
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(inFlight).toBe(0));
    expect(most).toBe(2);
  });

  it('after stop() arms nothing and wakes nothing', async () => {
    const attempt = vi.fn(() => Promise.resolve());
    const { scheduler } = make([], attempt);
    await scheduler.schedule(ACCOUNT_ID, 'dlv_a', new Date(Date.now() + 20));
    await scheduler.stop();
    await scheduler.schedule(ACCOUNT_ID, 'dlv_b', new Date());
    await new Promise((r) => setTimeout(r, 50));
    expect(attempt).not.toHaveBeenCalled();
  });
});
