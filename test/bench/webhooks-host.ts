/**
 * The webhook benchmark's local host, in a process of its own (not the load generator's): the
 * local host as `npm start` runs it, plus a line protocol on stdin that publishes synthetic
 * terminal events straight onto its in-process bus, as the outbox relay does, so the benchmark
 * measures the sender alone. `{"publish": n, "type": "upload.ready"}` -> `{"published": n}`.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { localEventBus } from '../../functions/adapters/events/local-event-bus.js';
import { newId } from '../../functions/domain/ids.js';
import type { EventType } from '../../functions/domain/events/model.js';
import { startLocalHost } from '../../functions/local/host.js';

const host = await startLocalHost({ dataDir: process.env.LOCAL_DATA_DIR ?? '.local-bench', port: 0 });
const bus = localEventBus(join(host.dataDir, 'events.ndjson'));
console.log(JSON.stringify({ ready: { baseUrl: host.baseUrl, apiKey: host.apiKey, accountId: host.accountId } }));

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { publish?: number; type?: EventType; stop?: true };
  if (command.stop) break;
  const type = command.type ?? 'upload.ready';
  const count = command.publish ?? 0;
  for (let i = 0; i < count; i++) {
    const uploadId = newId('upload');
    await bus.publish(host.accountId, {
      id: newId('event'),
      type,
      created_at: new Date().toISOString(),
      data: { object: { object: 'upload', upload_id: uploadId, status: type === 'upload.ready' ? 'ready' : 'failed' } },
    });
  }
  console.log(JSON.stringify({ published: count }));
}
await host.stop();
process.exit(0);
