/**
 * Cross-account access on every route of the route table (DESIGN §9: every key starts with the
 * account; another account's resource is 404, indistinguishable from an unknown one). Account A
 * owns one real resource of every kind a route names; account B calls every route with A's ids:
 * - in the path: 404 `not_found` in the error envelope, and A's resources are unchanged after;
 * - in the body (a run of A's upload, a batch of A's scanner): a 4xx in the envelope, never a 2xx;
 * - as list filters (`?run_id=`, `?endpoint_id=`, ...): 200 with an empty list, where A's own call
 *   finds data;
 * and no answer to B ever contains an id of A's it was not given. The routes, their parameters
 * and body fields come from the code (api-model.ts); ids from idFactories (resources.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectEnvelope, type ApiResponse, type List } from '../helpers/api.js';
import { apiModel, candidateBodies, pathOf, propertyNames, type RouteModel } from './api-model.js';
import { idFactories, newTenant, Resources } from './resources.js';

const { models } = await apiModel();

/** Parameter names that name a resource: every path parameter, and every `*_id` filter of a list. */
const idParameters = (model: RouteModel): string[] => [...model.pathParameters, ...model.query.map((q) => q.name).filter((name) => name.endsWith('_id'))];
const withPathIds = models.filter((model) => model.pathParameters.length > 0);
const lists = models.filter((model) => model.route.method === 'GET' && model.pathParameters.length === 0);
const withBodyIds = models.filter((model) => propertyNames(model.body).some((name) => name in idFactories));
const idempotencyHeader = (model: RouteModel): Record<string, string> =>
  model.route.idempotency === 'accepted' || model.route.idempotency === 'required' ? { 'idempotency-key': randomUUID() } : {};

let a: Resources;
let b: Resources;
/** Every id of A's, by kind. */
let aIds: Record<string, string> = {};
/** A's resources as A reads them (the GET of each kind), before B's calls. */
const before = new Map<string, unknown>();

/**
 * A resource as it stands, without what is minted afresh on every read: signed URLs and their
 * expiry (a render's asset URLs).
 */
function standing(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(standing);
  if (typeof value === 'string') return value.includes('X-Amz-Signature=') ? value.split('?')[0] : value;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.endsWith('_expires_at'))
      .map(([key, item]) => [key, standing(item)]),
  );
}

/** The GET route that reads one resource of a kind: `GET /v1/runs/{run_id}`. */
const getterOf = (name: string) =>
  models.find((model) => model.route.method === 'GET' && model.pathParameters.length === 1 && model.route.path.endsWith(`{${name}}`));

/** Ids of A's in `response` that the request did not carry itself (an echo of a sent id is no leak). */
function leakedIds(response: ApiResponse<unknown>, sent: string): string[] {
  return Object.values(aIds).filter((id) => response.text.includes(id) && !sent.includes(id));
}

async function call(resources: Resources, model: RouteModel, path: string, body?: unknown) {
  const headers = idempotencyHeader(model);
  return body === undefined
    ? resources.tenant.client.send(model.route.method, path, { headers })
    : resources.tenant.client.send(model.route.method, path, { json: body, headers });
}

/** B's body for a route: valid as far as B can make it, with B's own ids unless told otherwise. */
async function bodyFor(model: RouteModel, owner: Resources): Promise<Record<string, unknown> | undefined> {
  const names = propertyNames(model.body).filter((name) => name in idFactories);
  const substitutions = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await owner.id(name)] as const)));
  return candidateBodies(model, substitutions)[0];
}

test('every route parameter and id filter names a kind idFactories can make', () => {
  const unknown = models.flatMap((model) =>
    idParameters(model)
      .filter((name) => !(name in idFactories))
      .map((name) => `${model.key}: {${name}}`),
  );
  expect(unknown, `add a factory for each to idFactories (test/reliability/resources.ts): ${unknown.join('; ')}`).toEqual([]);
});

describe("account B calling with account A's ids", () => {
  beforeAll(async () => {
    [a, b] = (await Promise.all([newTenant(), newTenant()])).map((tenant) => new Resources(tenant)) as [Resources, Resources];
    const kinds = [...new Set(models.flatMap(idParameters))].filter((name) => name in idFactories);
    await Promise.all(kinds.map((name) => a.id(name)));
    aIds = await a.all();
    for (const name of Object.keys(aIds)) {
      const getter = getterOf(name);
      if (!getter) continue;
      const read = await a.tenant.client.get(pathOf(getter, { [name]: aIds[name] ?? '' }));
      expect(read.status, `${getter.key} as A: ${read.text}`).toBe(200);
      before.set(name, standing(read.body));
    }
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  test.for(withPathIds.map((model) => [model.key, model] as const))("%s: 404 for another account's ids in the path", async ([, model]) => {
    const path = pathOf(model, aIds);
    const response = await call(b, model, path, await bodyFor(model, b));
    expect(response.status, `${model.key} as B with A's ids: ${response.text}`).toBe(404);
    expectEnvelope(response);
    expect((response.body as { error: { code: string } }).error.code).toBe('not_found');
    expect(leakedIds(response, path), `${model.key} answered B with A's ids`).toEqual([]);
  });

  test.for(withBodyIds.map((model) => [model.key, model] as const))("%s: refused for another account's ids in the body", async ([, model]) => {
    const path = pathOf(model, Object.fromEntries(await Promise.all(model.pathParameters.map(async (name) => [name, await b.id(name)] as const))));
    const body = await bodyFor(model, a);
    const response = await call(b, model, path, body);
    expect(response.status, `${model.key} as B with A's ids in ${JSON.stringify(body)}: ${response.text}`).toBeGreaterThanOrEqual(400);
    expect(response.status, response.text).toBeLessThan(500);
    expectEnvelope(response);
    // Refused because an id is not B's (an unknown and a foreign id are indistinguishable), not for
    // anything else: a *_not_found code, or validation_failed naming one of those id fields.
    const { code, param } = (response.body as { error: { code: string; param?: string } }).error;
    if (code === 'validation_failed') expect(param, response.text).toMatch(new RegExp(`(^|\\.)(${Object.keys(idFactories).join('|')})$`));
    else expect(code, response.text).toMatch(/not_found$/);
    expect(leakedIds(response, JSON.stringify(body)), `${model.key} answered B with A's ids`).toEqual([]);
  });

  test.for(lists.map((model) => [model.key, model] as const))("%s: another account's data never listed, its ids as filters find nothing", async ([, model]) => {
    const plain = await b.tenant.client.get(model.route.path);
    expect(plain.status, plain.text).toBe(200);
    expect(leakedIds(plain, ''), `${model.key} listed A's resources to B`).toEqual([]);
    for (const { name } of model.query.filter((q) => q.name in idFactories)) {
      const path = `${model.route.path}?${name}=${encodeURIComponent(aIds[name] ?? '')}`;
      const own = await a.tenant.client.get<List<unknown>>(path);
      expect(own.status, `${path} as A: ${own.text}`).toBe(200);
      expect(
        own.body.data.length,
        `${path} as A finds nothing, so B finding nothing would prove nothing: make idFactories.${name} produce what it lists`,
      ).toBeGreaterThan(0);
      const foreign = await b.tenant.client.get<List<unknown>>(path);
      expect(foreign.status, `${path} as B: ${foreign.text}`).toBe(200);
      expect(foreign.body.data, `${path} as B`).toEqual([]);
      expect(leakedIds(foreign, path)).toEqual([]);
    }
  });

  test("A's resources are unchanged by B's calls", async () => {
    for (const [name, snapshot] of before) {
      const getter = getterOf(name);
      if (!getter) continue;
      const read = await a.tenant.client.get(pathOf(getter, { [name]: aIds[name] ?? '' }));
      expect(standing(read.body), `${getter.key} after B's calls`).toEqual(snapshot);
    }
  });

  // Last: some of these change A's resources (a cancel, a delete), and a DELETE comes after everything.
  test('the same calls as A find the resources: the ids are real for every route', async () => {
    const ordered = [...withPathIds].sort((x, y) => Number(x.route.method === 'DELETE') - Number(y.route.method === 'DELETE'));
    const notFound: string[] = [];
    for (const model of ordered) {
      const response = await call(a, model, pathOf(model, aIds), await bodyFor(model, a));
      if (response.status === 404) notFound.push(`${model.key}: ${response.text.slice(0, 200)}`);
      expect(response.status, `${model.key} as A: ${response.text}`).toBeLessThan(500);
    }
    expect(notFound, "routes that do not find their own account's resource (the 404 for B proves nothing there)").toEqual([]);
  });
});
