/**
 * The local host's terminal events as delivered: `<dataDir>/events.ndjson`, one line per
 * publication (functions/adapters/events/local-event-bus.ts). Delivery is at least once, so a
 * consumer dedupes by event id; these helpers do the same.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventLogLine } from '../../functions/adapters/events/local-event-bus.js';

export type { EventLogLine };

/** Every line of the data directory's event log (none before the first event). */
export async function eventLog(dataDir: string): Promise<EventLogLine[]> {
  const text = await readFile(join(dataDir, 'events.ndjson'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLogLine);
}

/** The distinct event ids per event type, of the events whose record carries `field: value` (e.g. run_id). */
export function eventIdsByType(lines: readonly EventLogLine[], field: string, value: string): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>();
  for (const { event } of lines) {
    if ((event.data.object as Record<string, unknown> | undefined)?.[field] !== value) continue;
    byType.set(event.type, (byType.get(event.type) ?? new Set()).add(event.id));
  }
  return byType;
}

/**
 * The event log once `relayed` holds for it: terminal events reach the log through the outbox
 * relay, a moment after the state change (the local host polls its outbox every 100 ms).
 */
export async function eventLogOnce(dataDir: string, relayed: (lines: readonly EventLogLine[]) => boolean, timeoutMs = 10_000): Promise<EventLogLine[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = await eventLog(dataDir);
    if (relayed(lines) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
