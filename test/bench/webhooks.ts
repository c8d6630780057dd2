import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { childEnv, repoRoot } from '../helpers/processes.js';
import { startWebhookReceiver, type Hook } from '../helpers/webhook-receiver.js';
import { call, round, type ApiTarget } from './client.js';

const LATENCY_SAMPLES = 200;
const BURST_EVENTS = 1_000;
const BURST_ENDPOINTS = 3;

export interface WebhooksBenchResult {
  phase: string;
  events: number;
  endpoints: number;
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  seconds: number;
  deliveriesPerSecond: number;
  verified: string;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** The bench's own local host (test/bench/webhooks-host.ts), driven over stdin. */
async function startBenchHost() {
  const dataDir = await mkdtemp(join(tmpdir(), 'mss-bench-webhooks-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/webhooks-host.ts'], {
    cwd: repoRoot,
    env: childEnv({ LOCAL_DATA_DIR: dataDir, LOCAL_ALLOW_LOOPBACK_TARGETS: '1', LOG_LEVEL: 'WARN' }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(key: string): Promise<T> => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error('the bench host exited');
      if (!value.startsWith('{')) continue; // the host's own messages
      const parsed = JSON.parse(value) as Record<string, unknown>;
      if (key in parsed) return parsed[key] as T;
    }
  };
  const target = await next<ApiTarget & { accountId: string }>('ready');
  return {
    target,
    async publish(count: number, type: string): Promise<number> {
      const sentAt = Date.now();
      child.stdin.write(`${JSON.stringify({ publish: count, type })}\n`);
      await next<number>('published');
      return sentAt;
    },
    async stop() {
      child.stdin.write(`${JSON.stringify({ stop: true })}\n`);
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function createEndpoint(target: ApiTarget, hook: Hook, events: string[]): Promise<void> {
  const endpoint = await call<{ secret: string }>(target, 'POST', '/v1/webhook-endpoints', { url: hook.url, events });
  hook.secrets.push(endpoint.secret);
}

/** Latency of one delivery: from the event's created_at (stamped by the host) to its arrival. */
const latencies = (hooks: Hook[]) => hooks.flatMap((hook) => hook.received.map((r) => r.receivedAt - Date.parse(r.event.created_at))).sort((a, b) => a - b);

function figures(phase: string, events: number, hooks: Hook[], seconds: number): WebhooksBenchResult {
  const sorted = latencies(hooks);
  const received = hooks.flatMap((hook) => hook.received);
  return {
    phase,
    events,
    endpoints: hooks.length,
    deliveries: received.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
    seconds: round(seconds),
    deliveriesPerSecond: round(received.length / seconds),
    verified: `${received.filter((r) => r.verifiedWith.length === 1).length}/${received.length}`,
  };
}

/**
 * Issue #13 (webhooks) on the local host: event-to-delivery latency of single events to one
 * endpoint (p50/p99), then 1,000 events published at once to 3 endpoints (deliveries per second).
 * Every request is verified with the Standard Webhooks reference library by the receiver.
 */
export async function benchWebhooks(): Promise<WebhooksBenchResult[]> {
  const receiver = await startWebhookReceiver();
  const host = await startBenchHost();
  try {
    const single = receiver.hook('/latency');
    await createEndpoint(host.target, single, ['upload.failed']);
    const started = Date.now();
    for (let i = 1; i <= LATENCY_SAMPLES; i++) {
      await host.publish(1, 'upload.failed');
      await single.waitForCount(() => true, i, 30_000);
    }
    const latency = figures('one event at a time, 1 endpoint', LATENCY_SAMPLES, [single], (Date.now() - started) / 1000);

    const burst = Array.from({ length: BURST_ENDPOINTS }, (_, i) => receiver.hook(`/burst-${i}`));
    for (const hook of burst) await createEndpoint(host.target, hook, ['upload.ready']);
    const sentAt = await host.publish(BURST_EVENTS, 'upload.ready');
    await Promise.all(burst.map((hook) => hook.waitForCount(() => true, BURST_EVENTS, 10 * 60_000)));
    const lastAt = Math.max(...burst.flatMap((hook) => hook.received.map((r) => r.receivedAt)));
    const throughput = figures(`${BURST_EVENTS} events at once, ${BURST_ENDPOINTS} endpoints`, BURST_EVENTS, burst, (lastAt - sentAt) / 1000);
    return [latency, throughput];
  } finally {
    await host.stop();
    await receiver.close();
  }
}
