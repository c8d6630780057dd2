/**
 * Real resources of an account, one of each kind a route can name, made through the public API
 * the way an integrator makes them. `idFactories` is keyed by the parameter names the routes use
 * (path parameters such as `{run_id}`, id filters such as `?endpoint_id=`): a route that names a
 * kind this map does not know fails the cross-account test until an entry is added here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, inject } from 'vitest';
import { adminOutput, api, createAccount, createScanner, listAll, runAdmin, type Client, type List } from '../helpers/api.js';
import { submitBatch, waitForBatch } from '../helpers/batches.js';
import { ledgerOf } from '../helpers/ledger.js';
import { startMediaServer, type MediaServer } from '../helpers/media-server.js';
import { balanceOf, longVideo, momentsOf, sleep, startRun, uploadFile, waitForCompleted, type Run } from '../helpers/runs.js';
import { pathOf, type RouteModel } from './api-model.js';

/** An account of the shared host, with its key and a client. */
export interface Tenant {
  accountId: string;
  apiKey: string;
  client: Client;
}

export async function newTenant(credits = 100): Promise<Tenant> {
  const account = await createAccount({ plan: 'creator', credits });
  // Its one-off sources and webhook receivers are loopback servers (the shared host allows loopback).
  adminOutput(await runAdmin(['accounts', 'trust-host', '127.0.0.1', '--account', account.accountId], inject('dataDir')));
  return { ...account, client: api(inject('baseUrl'), account.apiKey) };
}

/** A loopback webhook receiver that accepts every delivery (2xx), so deliveries settle at once. */
export async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

type Factory = (resources: Resources) => Promise<string>;

/** Polls `read` until it returns a value (loopback: a short interval), failing after `timeoutMs` with `what`. */
async function eventually<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(250);
  }
}

/**
 * How to obtain a real id of each kind named by a route parameter. The upload is a 30 s video
 * (one credit a run) and the scanner finds its scene changes, so the run's analysis has video
 * moments, which renders need.
 */
export const idFactories: Record<string, Factory> = {
  upload_id: async ({ tenant }) => (await uploadFile(tenant.client, await longVideo(30))).upload_id,
  scanner_id: async ({ tenant }) =>
    (await createScanner(tenant.client, { name: 'reliability', type: 'find_moments', instructions: 'Find the scene changes', min_seconds: 5, max_seconds: 9 }))
      .scanner_id,
  // A completed run: it has observations, an analysis with moments, and billing settled.
  run_id: async (resources) => {
    const run = await startRun(resources.tenant.client, await resources.id('scanner_id'), { upload_id: await resources.id('upload_id') });
    return (await waitForCompleted(resources.tenant.client, run.run_id)).run_id;
  },
  analysis_id: async (resources) => {
    const run = await resources.tenant.client.get<Run>(`/v1/runs/${await resources.id('run_id')}`);
    return run.body.analysis_id;
  },
  // A finished render of the run's first moment (renders cost nothing).
  render_id: async (resources) => {
    const created = await resources.tenant.client.post<{ render_id: string }>('/v1/renders', {
      analysis_id: await resources.id('analysis_id'),
      moment_ids: await valueFactories.moment_ids?.(resources),
    });
    expect(created.status, created.text).toBe(202);
    const renderId = created.body.render_id;
    await eventually(
      `render ${renderId} to finish`,
      async () => {
        const read = await resources.tenant.client.get<{ status: string }>(`/v1/renders/${renderId}`);
        return underWay.has(read.body.status) ? undefined : true;
      },
      120_000,
    );
    return renderId;
  },
  batch_id: async (resources) => {
    const batch = await submitBatch(resources.tenant.client, [
      { client_id: 'one', scanner_id: await resources.id('scanner_id'), upload_id: await resources.id('upload_id') },
    ]);
    return (await waitForBatch(resources.tenant.client, batch.batch_id)).batch_id;
  },
  endpoint_id: async (resources) => {
    const created = await resources.tenant.client.post<{ endpoint_id: string }>('/v1/webhook-endpoints', {
      url: (await resources.receiver()).url,
      events: ['run.completed', 'upload.ready'],
      description: 'reliability',
    });
    expect(created.status, created.text).toBe(201);
    return created.body.endpoint_id;
  },
  // The endpoint's test event: an event id of the account, and a delivery of it.
  event_id: async (resources) => {
    const sent = await resources.tenant.client.post<{ event_id: string }>(`/v1/webhook-endpoints/${await resources.id('endpoint_id')}/test`);
    expect(sent.status, sent.text).toBe(202);
    return sent.body.event_id;
  },
  delivery_id: async (resources) => {
    const eventId = await resources.id('event_id');
    return eventually(`a delivery of ${eventId}`, async () => {
      const page = await resources.tenant.client.get<List<{ delivery_id: string }>>(`/v1/webhook-deliveries?event_id=${eventId}`);
      expect(page.status, page.text).toBe(200);
      return page.body.data[0]?.delivery_id;
    });
  },
};

/**
 * Values of body fields that must name something real for a request to succeed, beyond ids: a
 * source the host may fetch, a receiver for webhooks, a window inside that source (one credit).
 */
export const valueFactories: Record<string, (resources: Resources) => Promise<unknown>> = {
  source_url: (resources) => resources.sourceUrl(),
  moment_ids: async (resources) => [(await momentsOf(resources.tenant.client, await resources.id('analysis_id'))).moments[0]?.id],
  url: async (resources) => (await resources.receiver()).url,
  analysis_start_seconds: () => Promise.resolve(0),
  analysis_end_seconds: () => Promise.resolve(5),
};

/** One of each kind an account needs, each made once, on demand. */
export class Resources {
  private readonly made = new Map<string, Promise<string>>();
  private receiverStarted: ReturnType<typeof startReceiver> | undefined;
  private mediaServer: Promise<MediaServer> | undefined;
  private source: Promise<string> | undefined;

  constructor(readonly tenant: Tenant) {}

  /** The id of kind `name` (a route parameter name); throws naming the kind when no factory knows it. */
  id(name: string): Promise<string> {
    let id = this.made.get(name);
    if (!id) {
      const factory = idFactories[name];
      if (!factory) throw new Error(`No factory for "${name}": add one to idFactories in test/reliability/resources.ts`);
      id = factory(this);
      this.made.set(name, id);
    }
    return id;
  }

  /** Every id made so far, by kind. */
  async all(): Promise<Record<string, string>> {
    return Object.fromEntries(await Promise.all([...this.made].map(async ([name, id]) => [name, await id] as const)));
  }

  /** Real values for the named body fields this module knows (ids and valueFactories); the rest are left out. */
  async values(names: readonly string[]): Promise<Record<string, unknown>> {
    const known = names.filter((name) => name in idFactories || name in valueFactories);
    return Object.fromEntries(
      await Promise.all(known.map(async (name) => [name, name in idFactories ? await this.id(name) : await valueFactories[name]?.(this)] as const)),
    );
  }

  receiver(): ReturnType<typeof startReceiver> {
    this.receiverStarted ??= startReceiver();
    return this.receiverStarted;
  }

  /** A 30 s video on a loopback media server (the account trusts 127.0.0.1): a one-off analysis source. */
  sourceUrl(): Promise<string> {
    this.mediaServer ??= startMediaServer();
    this.source ??= Promise.all([this.mediaServer, longVideo(30)]).then(([server, video]) => server.add(video));
    return this.source;
  }

  async close(): Promise<void> {
    if (this.receiverStarted) await (await this.receiverStarted).close();
    if (this.mediaServer) await (await this.mediaServer).close();
  }
}

// ---------------------------------------------------------------------------------------------
// An account's state as its lists show it

/** States of work still under way; everything else a list shows is settled. */
const underWay = new Set(['queued', 'dispatched', 'processing', 'canceling']);

/** The list routes an account can read: every paged GET whose path parameters name ids it has. */
function listPaths(models: readonly RouteModel[], ids: Record<string, string>): string[] {
  return models
    .filter((model) => model.route.method === 'GET' && model.route.cursors === true && model.pathParameters.every((name) => name in ids))
    .map((model) => pathOf(model, ids));
}

/** Every item of a list, 20 a page (the default page size, which every list accepts). */
const everyItem = async (client: Client, path: string) => (await listAll<Record<string, unknown>>(client, path, 20)).items;

/** Waits until nothing the account's lists show is still under way (runs, analyses, batches, deliveries). */
export async function settled(resources: Resources, models: readonly RouteModel[], timeoutMs = 150_000): Promise<void> {
  const paths = listPaths(models, await resources.all());
  await eventually(
    'all work of the account settling',
    async () => {
      for (const path of paths) {
        const items = await everyItem(resources.tenant.client, path);
        if (items.some((item) => typeof item.status === 'string' && underWay.has(item.status))) return undefined;
      }
      return true;
    },
    timeoutMs,
  );
}

export interface AccountSnapshot {
  /** Items per list route. */
  counts: Record<string, number>;
  balance: number;
  ledgerEntries: number;
}

/** How many items each of the account's lists holds, its balance and its ledger's length. */
export async function snapshot(resources: Resources, models: readonly RouteModel[]): Promise<AccountSnapshot> {
  const counts: Record<string, number> = {};
  for (const path of listPaths(models, await resources.all())) counts[path] = (await everyItem(resources.tenant.client, path)).length;
  return { counts, balance: await balanceOf(resources.tenant.client), ledgerEntries: (await ledgerOf(inject('dataDir'), resources.tenant.accountId)).length };
}

/** `after - before`, per list and for the wallet (lists absent before count from zero). */
export function difference(before: AccountSnapshot, after: AccountSnapshot): AccountSnapshot {
  return {
    counts: Object.fromEntries(Object.entries(after.counts).map(([path, count]) => [path, count - (before.counts[path] ?? 0)])),
    balance: after.balance - before.balance,
    ledgerEntries: after.ledgerEntries - before.ledgerEntries,
  };
}
