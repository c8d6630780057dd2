/**
 * Idempotency and wallet races, for the routes the route table says take an Idempotency-Key
 * (`idempotency: 'accepted' | 'required'`) and the routes that start work (`workflows`: scanner
 * runs, one-off analyses, scanner batches, whose items reserve when spawned):
 * - 50 concurrent requests with one key and one body: every answer, once the in-progress ones are
 *   retried, is the same status and byte-identical body, exactly one of them not a replay, and
 *   the account changes exactly as one such request changes it (every list, the wallet, the ledger);
 * - 100 concurrent one-credit submissions on an account with 10 credits (40 on 4 where every
 *   request probes its source first, see raceOf): exactly as many reservations as credits,
 *   every refusal a 402 `insufficient_credits` in the envelope, the balance never below zero while
 *   it happens, and a ledger that adds up (one reservation per piece of work, refunds matching).
 * Request bodies come from the schemas and documented examples (api-model.ts), with real ids.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { expectError, type ApiResponse } from '../helpers/api.js';
import { ledgerByWork, ledgerOf, ledgerProblems } from '../helpers/ledger.js';
import { balanceOf, sleep } from '../helpers/runs.js';
import { apiModel, candidateBodies, pathOf, propertyNames, type RouteModel } from './api-model.js';
import { difference, newTenant, Resources, settled, snapshot } from './resources.js';

const { models } = await apiModel();
const takesKey = (model: RouteModel) => model.route.idempotency === 'accepted' || model.route.idempotency === 'required';
const idempotent = models.filter(takesKey);
const startsWork = models.filter((model) => (model.route.workflows ?? []).length > 0);
/**
 * How hard to race each route. A route that measures its source on every request (ffprobe over
 * the network, before the wallet is even read) costs about a quarter of a second of CPU each on
 * the local host: 100 at once on two cores take close to the 29 s route deadline, past which a
 * request answers 500 (docs/reliability.md: a finding). Those race 40 requests on 4 credits.
 */
const raceOf = (model: RouteModel) =>
  model.route.ffprobe === true || model.route.outbound === true ? { requests: 40, credits: 4 } : { requests: 100, credits: 10 };

const opened: Resources[] = [];
afterAll(async () => {
  await Promise.all(opened.map((resources) => resources.close()));
});

async function account(credits: number): Promise<Resources> {
  const resources = new Resources(await newTenant(credits));
  opened.push(resources);
  return resources;
}

/** The route's path with the account's own ids. */
async function ownPath(model: RouteModel, resources: Resources): Promise<string> {
  return pathOf(model, (await resources.values(model.pathParameters)) as Record<string, string>);
}

function send(resources: Resources, model: RouteModel, path: string, body: unknown, key: string | undefined): Promise<ApiResponse<unknown>> {
  const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
  return resources.tenant.client.send(model.route.method, path, body === undefined ? { headers } : { json: body, headers });
}

/** The first candidate body the route accepts (2xx), sent once under a fresh key: what one request changes. */
async function firstAccepted(resources: Resources, model: RouteModel, path: string): Promise<{ body: unknown; response: ApiResponse<unknown> }> {
  const candidates = model.body ? candidateBodies(model, await resources.values(propertyNames(model.body))) : [undefined];
  const refused: string[] = [];
  for (const body of candidates) {
    const response = await send(resources, model, path, body, takesKey(model) ? randomUUID() : undefined);
    if (response.status < 300) return { body, response };
    refused.push(`${JSON.stringify(body)} -> ${response.status} ${response.text.slice(0, 300)}`);
  }
  throw new Error(`${model.key}: no candidate body was accepted; give api-model.ts or valueFactories what it needs:\n${refused.join('\n')}`);
}

/** Sends until the answer is not 409 idempotency_request_in_progress (the first request still running). */
async function untilDone(send: () => Promise<ApiResponse<unknown>>, timeoutMs = 90_000): Promise<ApiResponse<unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await send();
    const code = (response.body as { error?: { code?: string } } | undefined)?.error?.code;
    if (response.status !== 409 || code !== 'idempotency_request_in_progress' || Date.now() > deadline) return response;
    await sleep(100 + Math.random() * 200);
  }
}

describe('50 concurrent requests, one Idempotency-Key, one body', () => {
  test('the route table has idempotent routes to race', () => expect(idempotent.length).toBeGreaterThan(0));

  test.for(idempotent.map((model) => [model.key, model] as const))('%s: one effect, identical answers', async ([, model]) => {
    const resources = await account(100);
    const path = await ownPath(model, resources);
    // Everything the requests name exists before the first snapshot.
    await resources.values(propertyNames(model.body));
    await settled(resources, models);
    const start = await snapshot(resources, models);
    // What one request does, under a key of its own.
    const { body } = await firstAccepted(resources, model, path);
    await settled(resources, models);
    const afterOne = await snapshot(resources, models);

    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => untilDone(() => send(resources, model, path, body, key))));
    const first = answers[0]!;
    expect(first.status, first.text).toBeLessThan(300);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(first.status);
      expect(answer.text, 'every answer to the same key and body is the first answer').toBe(first.text);
    }
    const originals = answers.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true');
    expect(originals, 'exactly one answer is not a replay').toHaveLength(1);

    await settled(resources, models);
    const afterRace = await snapshot(resources, models);
    expect(difference(afterOne, afterRace), 'the 50 requests changed the account as much as one request did').toEqual(difference(start, afterOne));
    const ledger = await ledgerOf(inject('dataDir'), resources.tenant.accountId);
    expect(ledgerProblems(ledger, afterRace.balance)).toEqual([]);
  });
});

/** The pieces of work the ledger shows reservations for. */
const reservationsOf = async (resources: Resources) =>
  new Map([...ledgerByWork(await ledgerOf(inject('dataDir'), resources.tenant.accountId))].filter(([, work]) => work.reservations > 0));

describe('100 concurrent one-credit submissions on 10 credits (40 on 4 where each request probes its source)', () => {
  test('the route table has routes that start work to race', () => expect(startsWork.length).toBeGreaterThan(0));

  test.for(startsWork.map((model) => [model.key, model] as const))(
    '%s: exactly as many reserved as the wallet covers, never below zero, the ledger adds up',
    async ([, model]) => {
      const { requests, credits } = raceOf(model);
      /** The body of one submission: the required fields only (the example's extras, such as a run's window, suit other scanners). */
      const bodyFor = async (resources: Resources) => {
        const candidates = model.body ? candidateBodies(model, await resources.values(propertyNames(model.body))) : [undefined];
        return candidates[candidates.length - 1];
      };

      // Whether the work costs anything: one submission on an account of its own (once what it names
      // exists, which may have cost something itself). Some work is free (renders, DESIGN §5): there
      // is no wallet to race then.
      const probe = await account(credits);
      const probePath = await ownPath(model, probe);
      const probeBody = await bodyFor(probe);
      await settled(probe, models);
      const [before, balanceBefore] = [await reservationsOf(probe), await balanceOf(probe.tenant.client)];
      const probed = await send(probe, model, probePath, probeBody, takesKey(model) ? randomUUID() : undefined);
      expect(probed.status, probed.text).toBeLessThan(300);
      await settled(probe, models);
      const cost = [...(await reservationsOf(probe))].filter(([id]) => !before.has(id)).map(([, work]) => work);
      if (!cost.length) {
        expect(await balanceOf(probe.tenant.client), `${model.key} reserved nothing, and must then charge nothing`).toBe(balanceBefore);
        return;
      }
      expect(
        cost.every((work) => work.reserved === 1),
        `each piece of work this submission starts costs one credit: ${JSON.stringify(cost)}`,
      ).toBe(true);

      const resources = await account(credits);
      const path = await ownPath(model, resources);
      const body = await bodyFor(resources);
      await settled(resources, models);
      const lowest = { balance: credits };
      let racing = true;
      const watcher = (async () => {
        while (racing) {
          lowest.balance = Math.min(lowest.balance, await balanceOf(resources.tenant.client));
          await sleep(100);
        }
      })();
      const answers = await Promise.all(Array.from({ length: requests }, () => send(resources, model, path, body, takesKey(model) ? randomUUID() : undefined)));
      await settled(resources, models);
      racing = false;
      await watcher;

      const accepted = answers.filter((answer) => answer.status < 300);
      for (const refused of answers.filter((answer) => answer.status >= 300)) expectError(refused, 402, 'insufficient_credits');
      const reservations = [...(await reservationsOf(resources)).values()];
      expect(
        reservations.every((work) => work.reserved === 1),
        `every piece of work costs one credit: ${JSON.stringify(reservations)}`,
      ).toBe(true);
      expect(reservations, `accepted: ${accepted.length} of ${requests}`).toHaveLength(credits);
      expect(lowest.balance, 'the balance went below zero').toBeGreaterThanOrEqual(0);
      const balance = await balanceOf(resources.tenant.client);
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(ledgerProblems(await ledgerOf(inject('dataDir'), resources.tenant.accountId), balance)).toEqual([]);
    },
  );
});
