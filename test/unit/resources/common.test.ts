import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { noQuerySchema } from '../../../functions/resources/common/fields.js';
import { listQuerySchema } from '../../../functions/resources/common/list.js';
import { maxChars, metadataSchema } from '../../../functions/domain/metadata.js';
import { scannerCreateSchema } from '../../../functions/resources/scanners/request.js';

const keysOf = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

describe('metadataSchema', () => {
  it('accepts up to 20 keys and refuses 21', () => {
    expect(metadataSchema.safeParse(keysOf(20)).success).toBe(true);
    expect(metadataSchema.safeParse(keysOf(21)).success).toBe(false);
  });

  it('accepts keys of 1 to 40 characters only', () => {
    expect(metadataSchema.safeParse({ ['k'.repeat(40)]: 1 }).success).toBe(true);
    expect(metadataSchema.safeParse({ ['k'.repeat(41)]: 1 }).success).toBe(false);
    expect(metadataSchema.safeParse({ '': 1 }).success).toBe(false);
  });

  it('accepts string values up to 500 characters', () => {
    expect(metadataSchema.safeParse({ note: 'x'.repeat(500) }).success).toBe(true);
    expect(metadataSchema.safeParse({ note: 'x'.repeat(501) }).success).toBe(false);
  });

  it('accepts scalars, null included, and refuses anything nested', () => {
    const scalars = { s: 'text', n: 1.5, zero: 0, neg: -3, t: true, f: false, nothing: null };
    expect(metadataSchema.parse(scalars)).toEqual(scalars);
    for (const bad of [{ a: { b: 1 } }, { a: [1] }, { a: [] }, { a: {} }]) {
      expect(metadataSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('refuses numbers DynamoDB could not store exactly (never a 5xx later)', () => {
    for (const n of [1e300, 2 ** 53 + 2, -1e130, 1e-200]) expect(metadataSchema.safeParse({ n }).success).toBe(false);
    for (const n of [0, 1e-130, Number.MAX_SAFE_INTEGER, -42.5]) expect(metadataSchema.safeParse({ n }).success).toBe(true);
  });

  it('refuses non-finite numbers', () => {
    expect(metadataSchema.safeParse({ a: Number.POSITIVE_INFINITY }).success).toBe(false);
    expect(metadataSchema.safeParse({ a: Number.NaN }).success).toBe(false);
  });

  it('refuses a non-object', () => {
    for (const bad of ['x', 1, null, [], [['a', 1]]]) expect(metadataSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('applies to scanner creation: a 21st key is a 400, not silently dropped', () => {
    const result = scannerCreateSchema.safeParse({ name: 'n', instructions: 'i', type: 'scorer', metadata: keysOf(21) });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe('metadata');
  });

  // BUG (functions/resources/common/fields.ts, metadataSchema): zod's record copies entries into a plain
  // object with `out[key] = value`, so a JSON key "__proto__" (a legal 9-character key) is
  // accepted and then silently dropped: the caller gets 201 with metadata missing that key.
  it('keeps or refuses a "__proto__" key, never silently drops it', () => {
    const input = JSON.parse('{"__proto__": "x", "team": "red"}') as Record<string, unknown>;
    expect(Object.keys(input)).toEqual(['__proto__', 'team']);
    const result = metadataSchema.safeParse(input);
    if (result.success) expect(Object.keys(result.data).sort()).toEqual(['__proto__', 'team']);
  });

  // Keys that are not "__proto__" (covered above); fast-check deliberately generates names such as
  // "constructor", "toString" or "hasOwnProperty", which must behave like any other key.
  const metadataKey = fc
    .oneof(fc.string({ minLength: 0, maxLength: 45 }), fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', 'length'))
    .filter((key) => key !== '__proto__');
  const anyValue = fc.oneof(
    fc.string({ maxLength: 520 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(fc.integer(), { maxLength: 2 }),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  );
  const isScalar = (value: unknown) =>
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Math.abs(value) <= Number.MAX_SAFE_INTEGER && (value === 0 || Math.abs(value) >= 1e-130)) ||
    (typeof value === 'string' && value.length <= 500);

  it('property: whatever it accepts has at most 20 keys of 1..40 chars, only scalar values, and is returned unchanged', () => {
    fc.assert(
      fc.property(fc.dictionary(metadataKey, anyValue, { maxKeys: 26 }), (input) => {
        const result = metadataSchema.safeParse(input);
        if (!result.success) return;
        const entries = Object.entries(input);
        expect(entries.length).toBeLessThanOrEqual(20);
        for (const [key, value] of entries) {
          expect(key.length).toBeGreaterThanOrEqual(1);
          expect(key.length).toBeLessThanOrEqual(40);
          expect(isScalar(value)).toBe(true);
        }
        expect(Object.entries(result.data)).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });

  it('property: every object of at most 20 short keys and bounded scalars is accepted', () => {
    const goodKey = fc.string({ minLength: 1, maxLength: 40 }).filter((key) => key !== '__proto__');
    const storable = fc.oneof(
      fc.constant(0),
      fc.double({ min: 1e-130, max: Number.MAX_SAFE_INTEGER, noNaN: true }),
      fc.double({ min: -Number.MAX_SAFE_INTEGER, max: -1e-130, noNaN: true }),
    );
    const scalar = fc.oneof(fc.string({ maxLength: 500 }), storable, fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.dictionary(goodKey, scalar, { maxKeys: 20 }), (input) => {
        expect(metadataSchema.safeParse(input).success).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('maxChars', () => {
  it('counts code points', () => {
    expect(maxChars(3).safeParse('😀😀😀').success).toBe(true);
    expect(maxChars(3).safeParse('😀😀😀😀').success).toBe(false);
    expect(maxChars(3).safeParse('abcd').success).toBe(false);
  });
});

describe('listQuerySchema', () => {
  it('defaults limit to 20 and coerces query-string numbers', () => {
    expect(listQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(listQuerySchema.parse({ limit: '1' })).toEqual({ limit: 1 });
    expect(listQuerySchema.parse({ limit: '100', cursor: 'abc' })).toEqual({ limit: 100, cursor: 'abc' });
  });

  it.each(['0', '101', '-1', '2.5', 'ten', ''])('refuses limit=%j', (limit) => {
    const result = listQuerySchema.safeParse({ limit });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['limit']);
  });

  it('bounds the cursor to 1..2048 characters', () => {
    expect(listQuerySchema.safeParse({ cursor: '' }).success).toBe(false);
    expect(listQuerySchema.safeParse({ cursor: 'c'.repeat(2048) }).success).toBe(true);
    expect(listQuerySchema.safeParse({ cursor: 'c'.repeat(2049) }).success).toBe(false);
  });

  it('refuses unknown query parameters', () => {
    expect(listQuerySchema.safeParse({ limit: '5', offset: '10' }).success).toBe(false);
    expect(noQuerySchema.safeParse({ expand: 'x' }).success).toBe(false);
    expect(noQuerySchema.safeParse({}).success).toBe(true);
  });
});

describe('validation messages', () => {
  // Zod Mini loads no locale: without functions/shared/zod.ts's English one, both would read "Invalid input".
  it('name the rule that failed, in English', () => {
    expect(listQuerySchema.safeParse({ cursor: 'x'.repeat(2049) }).error?.issues[0]?.message).toBe('Too big: expected string to have <=2048 characters');
    expect(scannerCreateSchema.safeParse({ name: 3 }).error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
  });
});
