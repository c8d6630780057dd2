import type { DeliveryScheduler, WebhookDeliveryStore } from '../domain/webhooks/ports.js';
import { recordDeliveryWakeUp, recordScheduledWakeUp } from './aws-calls/recorder.js';
import { asUnit } from './unit-context.js';
import { units } from '../runtime/contracts.js';

interface LocalSchedulerOptions {
  deliveries: Pick<WebhookDeliveryStore, 'listDue'>;
  /** One wake-up of a delivery (domain attemptDelivery with the host's parts). */
  attempt: (accountId: string, deliveryId: string) => Promise<unknown>;
  /** How often the due index is read again; it also arms timers this far ahead. */
  sweepIntervalMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  warn: (message: string, error?: unknown) => void;
  now?: () => number;
  /** How much the host compresses delays (WEBHOOK_RETRY_SCALE): d here waits d / scale on AWS, which decides how AWS is asked to wait. */
  retryScale?: () => number;
}

const DEFAULT_SWEEP_INTERVAL_MS = 15_000;
const DEFAULT_CONCURRENCY = 8;
/** Due deliveries read per sweep; more are read by the next one (each leaves the index or moves on once attempted). */
const SWEEP_LIMIT = 500;
/**
 * A periodic sweep leaves alone a delivery created this recently with no attempt yet: the sender
 * that created it armed its first attempt (a timer here, a queue message on AWS). The sweep at
 * start takes every one (no timer survives a restart).
 */
const FRESH_DELIVERY_GRACE_MS = 30_000;
/** How long stop() waits for attempts in flight; one cut short stays pending and the next start resumes it. */
const STOP_WAIT_MS = 5_000;

interface Job {
  accountId: string;
  deliveryId: string;
  /** Whether AWS would wake it with an EventBridge Scheduler schedule (recorded as Scheduler's send when due). */
  scheduled?: Promise<boolean>;
}

/**
 * The local host's DeliveryScheduler: in-process timers. Pending deliveries live only in the
 * table, on the due index; the timers merely wake them. At start, and then every sweep interval
 * as a safety net, the due index is read and a timer armed for whatever falls due before the next
 * sweep, so a stop or crash loses no delivery: the next start resumes them all. One attempt per
 * delivery runs at a time, and at most `concurrency` in all.
 *
 * Timers and sweeps run as the host's own work in the AWS call recording (SQS and EventBridge
 * Scheduler do this on AWS), never as the route or task that armed them; `attempt` says whose
 * work an attempt is.
 */
export class LocalDeliveryScheduler implements DeliveryScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue: Job[] = [];
  private readonly queued = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Woken while in flight: attempted again once that attempt ends (it may have re-armed itself). */
  private readonly wokenAgain = new Map<string, Job>();
  private readonly sweepIntervalMs: number;
  private readonly concurrency: number;
  private readonly now: () => number;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: LocalSchedulerOptions) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.now = options.now ?? Date.now;
  }

  schedule(accountId: string, deliveryId: string, at: Date): Promise<void> {
    // What the calling unit asks of AWS for it (recorder.ts); nothing when not recording.
    const scheduled = recordDeliveryWakeUp(accountId, deliveryId, (at.getTime() - this.now()) / (this.options.retryScale?.() ?? 1));
    this.arm({ accountId, deliveryId, scheduled }, at.getTime());
    return scheduled.then(() => undefined);
  }

  /** Resumes what is pending (returns how many deliveries were armed), then sweeps periodically. */
  async start(): Promise<number> {
    const armed = await this.sweep(true);
    this.sweepTimer = setInterval(
      asUnit(units.host, () => {
        this.sweep(false).catch((error: unknown) => this.options.warn('Webhook sweep failed; the next one retries', error));
      }),
      this.sweepIntervalMs,
    );
    this.sweepTimer.unref();
    return armed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.wokenAgain.clear();
    const settled = Promise.allSettled(this.inFlight.values());
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
  }

  /** Arms a timer for each pending delivery due before the next sweep that has none. */
  private async sweep(atStart: boolean): Promise<number> {
    const now = this.now();
    const due = await this.options.deliveries.listDue(new Date(now + this.sweepIntervalMs).toISOString(), SWEEP_LIMIT);
    let armed = 0;
    for (const delivery of due) {
      const { deliveryId, accountId } = delivery;
      if (this.timers.has(deliveryId) || this.queued.has(deliveryId) || this.inFlight.has(deliveryId)) continue;
      if (!atStart && delivery.attempts.length === 0 && now - Date.parse(delivery.createdAt) < FRESH_DELIVERY_GRACE_MS) continue;
      this.arm({ accountId, deliveryId }, Date.parse(delivery.nextAttemptAt ?? delivery.updatedAt));
      armed++;
    }
    return armed;
  }

  private arm(job: Job, atMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(job.deliveryId));
    // setTimeout takes at most 2^31 - 1 ms; a later due time is re-armed by a sweep before then.
    const delay = Math.min(Math.max(0, atMs - this.now()), 2 ** 31 - 1);
    const timer = setTimeout(
      asUnit(units.host, () => {
        this.timers.delete(job.deliveryId);
        // A failed recording was the schedule() caller's error already.
        job.scheduled?.then(
          (viaScheduler) => viaScheduler && recordScheduledWakeUp(),
          () => undefined,
        );
        this.enqueue(job);
      }),
      delay,
    );
    timer.unref();
    this.timers.set(job.deliveryId, timer);
  }

  private enqueue(job: Job): void {
    if (this.stopped) return;
    if (this.inFlight.has(job.deliveryId)) {
      this.wokenAgain.set(job.deliveryId, job);
      return;
    }
    if (this.queued.has(job.deliveryId)) return;
    this.queued.add(job.deliveryId);
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.concurrency && this.queue.length) {
      const job = this.queue.shift()!;
      this.queued.delete(job.deliveryId);
      const run = this.options
        .attempt(job.accountId, job.deliveryId)
        .then(
          () => undefined,
          (error: unknown) => this.options.warn(`Webhook delivery ${job.deliveryId}: the attempt failed; the next sweep retries it`, error),
        )
        .finally(() => {
          this.inFlight.delete(job.deliveryId);
          const again = this.wokenAgain.get(job.deliveryId);
          this.wokenAgain.delete(job.deliveryId);
          if (again) this.enqueue(again);
          this.pump();
        });
      this.inFlight.set(job.deliveryId, run);
    }
  }
}
