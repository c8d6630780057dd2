/**
 * fast-check arbitraries from JSON Schema (the subset zod's z.toJSONSchema emits for the request
 * schemas, as functions/api/openapi.ts documents them): values that satisfy a schema, and
 * mutations of them that a hostile or broken client would send (wrong types, nulls, huge and
 * unusual strings, extra and missing fields, deep nesting). No vitest here.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

/** Valid values stay small: the point is many requests, not big ones (mutations make the big ones). */
const MAX_GENERATED_ITEMS = 4;
const MAX_GENERATED_CHARS = 40;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_GENERATED_CHARS, MAX_GENERATED_CHARS));
  const fits = (value: string) => value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity);
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  }
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl().filter(fits);
  if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc.string({ minLength, maxLength, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 _-.') });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e6);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((value) => (Object.is(value, -0) ? 0 : value));
}

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const named = fc.record(Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property)])), {
    requiredKeys: required.filter((name) => name in properties),
  });
  const extra = schema.additionalProperties;
  if (!extra || extra === true) return named;
  const keyArbitrary = schema.propertyNames ? stringArbitrary({ type: 'string', ...schema.propertyNames }) : fc.string({ minLength: 1, maxLength: 10 });
  const maxKeys = Math.min(schema.maxProperties ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS);
  return fc.tuple(named, fc.dictionary(keyArbitrary, validValue(extra), { maxKeys, noNullPrototype: true })).map(([fixed, rest]) => {
    const merged: Record<string, unknown> = {};
    // Keys in order, and never more than maxProperties in all.
    for (const [key, value] of [...Object.entries(fixed), ...Object.entries(rest)].slice(0, schema.maxProperties ?? Infinity)) {
      if (!(key in merged)) merged[key] = value;
    }
    return merged;
  });
}

function arrayArbitrary(schema: JsonSchema): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, MAX_GENERATED_ITEMS));
  const items = schema.items ? validValue(schema.items) : fc.jsonValue();
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
    : fc.array(items, { minLength, maxLength });
}

/** Values that satisfy `schema` (as far as the schema can say: cross-field rules are the handler's). */
export function validValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map(validValue));
  if (schema.allOf?.length) return validValue(Object.assign({}, ...schema.allOf) as JsonSchema);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type })));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(schema);
    case 'object':
      return objectArbitrary(schema);
    default:
      if (schema.properties) return objectArbitrary(schema);
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations: what a hostile or broken client sends instead.

/** Strings that have broken parsers, databases, loggers and templates before. */
export const nastyStrings: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uFEFFbom',
  '\uD800',
  '\uDFFF\uD800',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'مرحبا بالعالم',
  '\u202Egnp.exe',
  'Z̷̢̛͎̳̭a̴̡̛l̶̨̛g̷o̵',
  '%00',
  '%',
  '%ZZ',
  '../../../../etc/passwd',
  '..%2F..%2F',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  "' OR '1'='1",
  '"; DROP TABLE x; --',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'ACCT#acct_00000000000000000000000000000000',
  'scn_00000000000000000000000000000000',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  'true',
  'null',
  '[]',
  '{}',
  'http://127.0.0.1:1/x',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/x',
  'file:///etc/passwd',
  'https://www.youtube.com/watch?v=unavailable',
];

const hugeString = fc
  .constantFrom(1_000, 70_000, 400_000)
  .chain((length) => fc.constantFrom('x', 'é', '😀', '\u0000', '\\', '"').map((unit) => unit.repeat(length)));

/** Values of every JSON type, and odd ones of each. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, Number.MIN_VALUE, [], {}, [null], { '': null }),
  fc.constantFrom(...nastyStrings),
  hugeString,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 10, max: 50 }).map((depth) => nested(depth)),
);

/** `depth` levels of `{"a": [...]}`; JSON texts of deeper nesting are made by deeplyNestedJson. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A JSON text nested `depth` levels deep (arrays, objects or both). */
export const deeplyNestedJson = (depth: number, kind: 'array' | 'object' | 'mixed'): string => {
  const open = kind === 'array' ? '[' : kind === 'object' ? '{"a":' : '[{"a":';
  const close = kind === 'array' ? ']' : kind === 'object' ? '}' : '}]';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
};

type Path = (string | number)[];

/** Every place in a JSON value (the root included), depth first. */
function placesOf(value: unknown, path: Path = []): Path[] {
  const places: Path[] = [path];
  if (Array.isArray(value)) value.forEach((item, index) => places.push(...placesOf(item, [...path, index])));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) places.push(...placesOf(item, [...path, key]));
  return places;
}

function replaceAt(value: unknown, path: Path, replace: (current: unknown) => unknown): unknown {
  if (!path.length) return replace(value);
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return (value as unknown[]).map((item, index) => (index === head ? replaceAt(item, rest, replace) : item));
  const copy = { ...(value as Record<string, unknown>) };
  copy[head] = replaceAt(copy[head], rest, replace);
  return copy;
}

export type Mutation =
  | { kind: 'replace'; with: unknown }
  | { kind: 'remove' }
  | { kind: 'extra'; key: string; with: unknown }
  | { kind: 'wrap'; as: 'array' | 'string' };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: oddValue.map((value) => ({ kind: 'replace' as const, with: value })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'remove' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'account_id', 'accountId', 'PK', ''), fc.string({ maxLength: 12 })), oddValue)
      .map(([key, value]) => ({ kind: 'extra' as const, key, with: value })),
  },
  { weight: 1, arbitrary: fc.constantFrom('array' as const, 'string' as const).map((as) => ({ kind: 'wrap' as const, as })) },
);

/** Applies `change` at the `at`-th place (modulo the number of places) of `value`. */
export function mutate(value: unknown, at: number, change: Mutation): unknown {
  const places = placesOf(value);
  const path = places[at % places.length] ?? [];
  switch (change.kind) {
    case 'replace':
      return replaceAt(value, path, () => change.with);
    case 'wrap':
      return replaceAt(value, path, (current) => (change.as === 'array' ? [current] : JSON.stringify(current)));
    case 'remove': {
      if (!path.length) return undefined;
      const parent = path.slice(0, -1);
      const last = path[path.length - 1];
      return replaceAt(value, parent, (container) =>
        Array.isArray(container)
          ? container.filter((_, index) => index !== last)
          : Object.fromEntries(Object.entries(container as object).filter(([key]) => key !== last)),
      );
    }
    case 'extra':
      return replaceAt(value, path, (current) =>
        current !== null && typeof current === 'object' && !Array.isArray(current)
          ? { ...current, [change.key]: change.with }
          : { value: current, [change.key]: change.with },
      );
  }
}

/** One to three mutations of a valid value. */
export const mutatedValue = (schema: JsonSchema): fc.Arbitrary<unknown> =>
  fc
    .tuple(validValue(schema), fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 }))
    .map(([value, changes]) => changes.reduce((current, [at, change]) => mutate(current, at, change), value));
