import { describe, expect, it } from 'vitest';
import { scannerCreateSchema, scannerIdParams, scannerUpdateSchema } from '../../../functions/resources/scanners/request.js';

const valid = { name: 'Highlights', instructions: 'Find the loud parts.', type: 'find_moments' } as const;

const firstIssue = (result: { success: boolean; error?: { issues: { code: string; path: PropertyKey[] }[] } | undefined }) => {
  expect(result.success).toBe(false);
  return result.error?.issues[0];
};

describe('scannerCreateSchema', () => {
  it('accepts a minimal definition and every scanner type', () => {
    for (const type of ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor']) {
      expect(scannerCreateSchema.safeParse({ ...valid, type }).success).toBe(true);
    }
  });

  it('rejects an unknown top-level field and names it', () => {
    const issue = firstIssue(scannerCreateSchema.safeParse({ ...valid, colour: 'red' }));
    expect(issue).toMatchObject({ code: 'unrecognized_keys', keys: ['colour'] });
  });

  it('rejects an unknown field inside output', () => {
    const issue = firstIssue(scannerCreateSchema.safeParse({ ...valid, type: 'classifier', output: { labels: ['a', 'b'], extra: 1 } }));
    expect(issue).toMatchObject({ code: 'unrecognized_keys', path: ['output'] });
  });

  it('rejects missing required fields and an unknown type or profile', () => {
    expect(scannerCreateSchema.safeParse({ name: 'x', type: 'scorer' }).success).toBe(false);
    expect(scannerCreateSchema.safeParse({ ...valid, type: 'transcriber' }).success).toBe(false);
    expect(scannerCreateSchema.safeParse({ ...valid, profile: 'sports' }).success).toBe(false);
    expect(scannerCreateSchema.safeParse({ ...valid, profile: 'gameplay' }).success).toBe(true);
  });

  describe('instructions', () => {
    it('accepts 600 characters and refuses 601', () => {
      expect(scannerCreateSchema.safeParse({ ...valid, instructions: 'a'.repeat(600) }).success).toBe(true);
      const issue = firstIssue(scannerCreateSchema.safeParse({ ...valid, instructions: 'a'.repeat(601) }));
      expect(issue?.path).toEqual(['instructions']);
    });

    it('counts an emoji as one character, not two UTF-16 units', () => {
      expect('😀'.length).toBe(2);
      expect(scannerCreateSchema.safeParse({ ...valid, instructions: '😀'.repeat(600) }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, instructions: '😀'.repeat(601) }).success).toBe(false);
      expect(scannerCreateSchema.safeParse({ ...valid, instructions: `${'😀'.repeat(599)}ab` }).success).toBe(false);
    });

    it('trims before counting and refuses blank instructions', () => {
      const padded = scannerCreateSchema.safeParse({ ...valid, instructions: `  ${'a'.repeat(600)}  ` });
      expect(padded.success).toBe(true);
      expect(padded.data?.instructions).toBe('a'.repeat(600));
      expect(scannerCreateSchema.safeParse({ ...valid, instructions: '   ' }).success).toBe(false);
    });
  });

  describe('numbers', () => {
    it('bounds max_observations to 1..50 integers', () => {
      expect(scannerCreateSchema.safeParse({ ...valid, max_observations: 1 }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, max_observations: 50 }).success).toBe(true);
      for (const bad of [0, 51, 2.5, '10']) expect(scannerCreateSchema.safeParse({ ...valid, max_observations: bad }).success).toBe(false);
    });

    it('bounds min_seconds / max_seconds to integers 5..600', () => {
      expect(scannerCreateSchema.safeParse({ ...valid, min_seconds: 5, max_seconds: 600 }).success).toBe(true);
      for (const bad of [4, 601, 7.5]) {
        expect(scannerCreateSchema.safeParse({ ...valid, min_seconds: bad }).success).toBe(false);
        expect(scannerCreateSchema.safeParse({ ...valid, max_seconds: bad }).success).toBe(false);
      }
    });
  });

  describe('output', () => {
    const labels = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);
    it('wants 2..50 non-blank labels', () => {
      expect(scannerCreateSchema.safeParse({ ...valid, output: { labels: labels(2) } }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { labels: labels(50) } }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { labels: labels(1) } }).success).toBe(false);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { labels: labels(51) } }).success).toBe(false);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { labels: ['ok', '  '] } }).success).toBe(false);
    });

    it('wants 1..20 snake_case field names', () => {
      const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: fields(1) } }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: fields(20) } }).success).toBe(true);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: [] } }).success).toBe(false);
      expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: fields(21) } }).success).toBe(false);
      for (const bad of ['Duration', '1st', 'scene-count', '', `a${'b'.repeat(64)}`]) {
        expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: [bad] } }).success, bad).toBe(false);
      }
      expect(scannerCreateSchema.safeParse({ ...valid, output: { fields: [`a${'b'.repeat(63)}`] } }).success).toBe(true);
    });
  });
});

describe('scannerUpdateSchema', () => {
  it('refuses an empty patch', () => {
    expect(scannerUpdateSchema.safeParse({}).success).toBe(false);
  });

  it('accepts null to clear optional fields but not required ones', () => {
    expect(
      scannerUpdateSchema.safeParse({ profile: null, max_observations: null, min_seconds: null, max_seconds: null, output: null, metadata: null }).success,
    ).toBe(true);
    for (const required of ['name', 'instructions', 'type']) {
      expect(scannerUpdateSchema.safeParse({ [required]: null }).success, required).toBe(false);
    }
  });

  it('is as strict as creation about unknown fields and instructions length', () => {
    expect(firstIssue(scannerUpdateSchema.safeParse({ name: 'x', version: 3 }))).toMatchObject({ code: 'unrecognized_keys' });
    expect(scannerUpdateSchema.safeParse({ instructions: '😀'.repeat(601) }).success).toBe(false);
  });
});

describe('scannerIdParams', () => {
  it('takes any string up to 200 characters so a malformed id is simply not found', () => {
    expect(scannerIdParams.safeParse({ scanner_id: 'not-an-id' }).success).toBe(true);
    expect(scannerIdParams.safeParse({ scanner_id: 'x'.repeat(201) }).success).toBe(false);
  });
});
