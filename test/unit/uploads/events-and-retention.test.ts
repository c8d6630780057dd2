import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { localEventBus, type EventLogLine } from '../../../functions/adapters/events/local-event-bus.js';
import { eventBridgePublisher, EVENT_SOURCE } from '../../../functions/adapters/events/eventbridge-publisher.js';
import { awsHost } from '../../../functions/composition/aws-host.js';
import { parseConfig } from '../../../functions/config.js';
import { encodeTags, retentionClasses, retentionClassFor, retentionTags } from '../../../functions/domain/uploads/retention.js';
import type { ServiceEvent } from '../../../functions/domain/events/model.js';
import { serviceEnv } from '../../helpers/unit-fixtures.js';

const event = (n: number): ServiceEvent => ({
  id: `evt_${n}`,
  type: 'upload.ready',
  created_at: '2026-03-01T10:00:00.000Z',
  data: { object: { object: 'upload', upload_id: `upl_${n}` } },
});

describe('local event bus', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'events-'));
    return () => rm(dir, { recursive: true, force: true });
  });

  it('appends one JSON line per event, whole, even when published concurrently', async () => {
    const file = join(dir, 'nested', 'events.ndjson');
    const bus = localEventBus(file);
    await Promise.all(Array.from({ length: 20 }, (_, i) => bus.publish('acct_1', event(i))));
    const lines = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as EventLogLine);
    expect(lines).toHaveLength(20);
    expect(new Set(lines.map((l) => l.event.id)).size).toBe(20);
    expect(lines[0]).toEqual({ account_id: 'acct_1', event: event(0) });
  });

  it('returns from a publish once every in-process subscriber accepted the event, and fails when one cannot', async () => {
    const bus = localEventBus(join(dir, 'events.ndjson'));
    const seen: string[] = [];
    let accept: () => void = () => undefined;
    const unsubscribe = bus.subscribe(async (accountId, e) => {
      await new Promise<void>((resolve) => (accept = resolve));
      seen.push(`${accountId}:${e.id}`);
    });
    let returned = false;
    const published = bus.publish('acct_2', event(7)).then(() => (returned = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(returned).toBe(false);
    accept();
    await published;
    expect(seen).toEqual(['acct_2:evt_7']);
    unsubscribe();
    bus.subscribe(() => Promise.reject(new Error('table down')));
    await expect(bus.publish('acct_2', event(8))).rejects.toThrow('table down');
  });

  it('is one bus per file, shared by every handler of the process', () => {
    expect(localEventBus(join(dir, 'a.ndjson'))).toBe(localEventBus(join(dir, 'a.ndjson')));
  });
});

describe('EventBridge publisher', () => {
  const eventBridge = mockClient(EventBridgeClient);
  beforeEach(() => eventBridge.reset());
  afterAll(() => eventBridge.restore());

  it('puts the payload with the account as detail, typed by detail-type', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await eventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus').publish('acct_1', event(1));
    const entry = eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry).toMatchObject({ EventBusName: 'bus', Source: EVENT_SOURCE, DetailType: 'upload.ready' });
    expect(JSON.parse(entry?.Detail ?? '')).toEqual({ account_id: 'acct_1', event: event(1) });
  });

  it('throws when the entry is refused, so the caller keeps it for a retry', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }] });
    await expect(eventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus').publish('acct_1', event(1))).rejects.toThrow(/InternalFailure/);
  });

  it('is the AWS host publisher when EVENT_BUS_NAME is set; without it events go nowhere', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    await (await awsHost(parseConfig({ ...serviceEnv, EVENT_BUS_NAME: 'bus' })).events()).publish('acct_1', event(2));
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
    await (await awsHost(parseConfig({ ...serviceEnv })).events()).publish('acct_1', event(3));
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
  });
});

describe('retention classes', () => {
  it('are the plan retention periods, and an override rounds up to the next class', () => {
    expect(retentionClasses()).toEqual([7, 30, 90, 365]);
    expect(retentionClassFor(7)).toBe(7);
    expect(retentionClassFor(8)).toBe(30);
    expect(retentionClassFor(91)).toBe(365);
    expect(retentionTags(30)).toEqual({ 'retention-days': '30' });
    expect(encodeTags({ 'retention-days': '90', other: 'a b' })).toBe('retention-days=90&other=a+b');
  });
});
