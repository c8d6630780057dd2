/**
 * What the reliability suite knows about each route, derived from the code and nothing else: the
 * route table (functions/routes.ts) joined with the OpenAPI document built afresh from the
 * handlers' zod schemas (functions/api/openapi.ts, as `npm run openapi` builds openapi.json).
 * A route added to the table is probed by every file here without editing them.
 */
import fc from 'fast-check';
import { buildOpenApiDocument } from '../../functions/api/openapi.js';
import { routeKey, routes, type RouteDefinition } from '../../functions/routes.js';
import { validValue, type JsonSchema } from '../helpers/schema-arbitraries.js';

export interface Parameter {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

export interface RouteModel {
  route: RouteDefinition;
  /** `POST /v1/scanners/{scanner_id}/runs` */
  key: string;
  /** In the order they appear in the path. */
  pathParameters: string[];
  query: Parameter[];
  body: JsonSchema | undefined;
  /** The operation's documented example body, when it has one. */
  example: Record<string, unknown> | undefined;
  /** The success status the document promises. */
  successStatus: number;
}

export type OpenApiDocument = Awaited<ReturnType<typeof buildOpenApiDocument>>;

interface OperationObject {
  parameters?: ({ name: string; in: string; required?: boolean; schema: JsonSchema } | { $ref: string })[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema; example?: Record<string, unknown> } } };
  responses: Record<string, unknown>;
}

let built: Promise<{ document: OpenApiDocument; models: RouteModel[] }> | undefined;

/** The document and one model per route of the table, built once per worker. */
export function apiModel(): Promise<{ document: OpenApiDocument; models: RouteModel[] }> {
  built ??= buildOpenApiDocument('reliability').then((document) => ({
    document,
    models: routes.map((route: RouteDefinition) => {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as OperationObject | undefined;
      if (!operation) throw new Error(`${routeKey(route)} is in the route table but not in the OpenAPI document built from it`);
      const parameters = (operation.parameters ?? []).filter((p): p is Exclude<typeof p, { $ref: string }> => !('$ref' in p));
      const json = operation.requestBody?.content['application/json'];
      return {
        route,
        key: routeKey(route),
        pathParameters: [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] ?? ''),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema, required: p.required ?? false })),
        body: json?.schema,
        example: json?.example,
        successStatus: Number(Object.keys(operation.responses).find((status) => /^2\d\d$/.test(status)) ?? 200),
      };
    }),
  }));
  return built;
}

/** The route's path with its parameters filled in (encoded) from `values`. */
export function pathOf(model: RouteModel, values: Record<string, string>): string {
  return model.route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${model.key}`);
    return encodeURIComponent(value);
  });
}

/** A deterministic sample of an arbitrary (seeded: the same schema gives the same body every run). */
const sampleOf = <T>(arbitrary: fc.Arbitrary<T>): T => fc.sample(arbitrary, { numRuns: 1, seed: 42 })[0] as T;

/** Every property name anywhere in a schema. */
export function propertyNames(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const own = Object.keys(schema.properties ?? {});
  const nested = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.allOf ?? []),
  ].flatMap(propertyNames);
  return [...new Set([...own, ...nested])];
}

/** `value` with every property named in `substitutions` (at any depth) replaced by its substitute. */
export function substitute(value: unknown, substitutions: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, substitutions));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key in substitutions ? substitutions[key] : substitute(item, substitutions)]));
}

/**
 * Bodies a correct client could send, most complete first: the documented example, then only the
 * required fields (from the example where it has them, else generated from the schema), each with
 * the fields named in `substitutions` (ids, URLs) set to real values.
 */
export function candidateBodies(model: RouteModel, substitutions: Record<string, unknown>): Record<string, unknown>[] {
  const schema = model.body;
  if (!schema) return [];
  const generated = sampleOf(validValue(schema)) as Record<string, unknown>;
  const source = model.example ?? generated;
  const required = Object.fromEntries((schema.required ?? []).map((name) => [name, name in source ? source[name] : generated[name]]));
  const bodies = [source, required].map((body) => substitute(body, substitutions) as Record<string, unknown>);
  return bodies.filter((body, index) => bodies.findIndex((other) => JSON.stringify(other) === JSON.stringify(body)) === index);
}
