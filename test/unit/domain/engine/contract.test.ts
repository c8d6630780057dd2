import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { enforceContract, type ContractContext } from '../../../../functions/domain/engine/contract.js';
import { observationTypes } from '../../../../functions/domain/engine/observation-types.js';
import { scannerTypes } from '../../../../functions/domain/scanners/model.js';

const labels = ['goal', 'foul', 'replay'];
const fields = ['duration_seconds', 'scene_count', 'dominant_color'];

/** Arbitrary contexts: any type, media kind, source, window inside it, caps and moment bounds. */
const contextArb: fc.Arbitrary<ContractContext> = fc
  .record({
    type: fc.constantFrom(...scannerTypes),
    mediaKind: fc.constantFrom('video' as const, 'audio' as const),
    durationMs: fc.integer({ min: 1_000, max: 7_200_000 }),
    windowFrom: fc.double({ min: 0, max: 1, noNaN: true }),
    windowTo: fc.double({ min: 0, max: 1, noNaN: true }),
    maxObservations: fc.integer({ min: 1, max: 50 }),
    scannerMax: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    minSeconds: fc.option(fc.integer({ min: 5, max: 60 }), { nil: undefined }),
    extraSeconds: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
    hasTranscript: fc.boolean(),
  })
  .map((r) => {
    const [a, b] = [r.windowFrom, r.windowTo].sort((x, y) => x - y) as [number, number];
    const startMs = Math.floor(a * (r.durationMs - 1000));
    const endMs = Math.max(startMs + 1000, Math.floor(b * r.durationMs));
    const isMoments = r.type === 'find_moments';
    return {
      scanner: {
        type: r.type,
        max_observations: r.scannerMax,
        min_seconds: isMoments ? r.minSeconds : undefined,
        max_seconds: isMoments && r.minSeconds !== undefined && r.extraSeconds !== undefined ? r.minSeconds + r.extraSeconds : undefined,
        output: r.type === 'classifier' ? { labels } : r.type === 'extractor' ? { fields } : undefined,
      },
      mediaKind: r.mediaKind,
      source: { startMs: 0, endMs: r.durationMs },
      window: isMoments ? { startMs, endMs } : { startMs: 0, endMs: r.durationMs },
      maxObservations: r.maxObservations,
      hasTranscript: r.hasTranscript,
    };
  });

/** Whatever a model might send back: right-ish shapes, wrong types, NaN, huge numbers, junk. */
const junk = fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.integer());
const findingArb = fc.oneof(
  fc.record(
    {
      value: fc.oneof(
        junk,
        fc.constantFrom(true, false, 'goal', 'GOAL', 'unknown label', 0.5, -3, 7, Number.NaN, Infinity),
        fc.record({ duration_seconds: junk, scene_count: junk, dominant_color: junk, secret_field: junk }, { requiredKeys: [] }),
        fc.record({ event_type: junk }, { requiredKeys: [] }),
      ),
      relevance_score: fc.oneof(fc.double({ noNaN: false }), junk),
      start_ms: fc.oneof(fc.integer({ min: -10_000, max: 8_000_000 }), fc.double(), junk),
      end_ms: fc.oneof(fc.integer({ min: -10_000, max: 8_000_000 }), fc.double(), junk),
      title: junk,
      summary: junk,
      evidence_kind: fc.oneof(fc.constantFrom('visual', 'transcript', 'audio', 'audio_and_transcript'), junk),
      transcript_excerpt: junk,
      speaker: junk,
      signals: fc.oneof(fc.array(junk, { maxLength: 30 }), junk),
    },
    { requiredKeys: [] },
  ),
  junk,
  fc.array(junk),
);

describe('enforceContract', () => {
  it('every observation obeys its type, range, score, cap and ranking, whatever the analyzer returned', () => {
    fc.assert(
      fc.property(contextArb, fc.array(findingArb, { maxLength: 80 }), (ctx, findings) => {
        const out = enforceContract({ status: 'answered', findings }, ctx);
        const cap = Math.min(ctx.maxObservations, ctx.scanner.max_observations ?? ctx.maxObservations);
        expect(out.length).toBeLessThanOrEqual(cap);

        for (const o of out) {
          expect(o.type).toBe(ctx.scanner.type);
          expect(o.value_type).toBe(observationTypes[ctx.scanner.type].value_type);
          expect(o.semantics).toBe(observationTypes[ctx.scanner.type].semantics);
          expect(Number.isFinite(o.relevance_score) && o.relevance_score >= 0 && o.relevance_score <= 1).toBe(true);

          const { start_ms, end_ms, duration_ms } = o.evidence;
          expect(Number.isInteger(start_ms) && Number.isInteger(end_ms)).toBe(true);
          expect(duration_ms).toBe(end_ms - start_ms);
          expect(duration_ms).toBeGreaterThan(0);
          const bounds = ctx.scanner.type === 'find_moments' ? ctx.window : ctx.source;
          expect(start_ms).toBeGreaterThanOrEqual(bounds.startMs);
          expect(end_ms).toBeLessThanOrEqual(bounds.endMs);

          if (ctx.mediaKind === 'video') expect(o.evidence.evidence_kind).toBe('visual');
          else expect(['transcript', 'audio', 'audio_and_transcript']).toContain(o.evidence.evidence_kind);
          if (!ctx.hasTranscript) {
            expect(o.evidence.transcript_excerpt).toBeNull();
            expect(o.evidence.evidence_kind === 'visual' || o.evidence.evidence_kind === 'audio').toBe(true);
          }
          expect(o.evidence.signals.every((s) => typeof s === 'string')).toBe(true);

          switch (ctx.scanner.type) {
            case 'monitor':
              expect(typeof o.value).toBe('boolean');
              break;
            case 'classifier':
              expect([...labels, 'other']).toContain(o.value);
              break;
            case 'scorer':
              expect(typeof o.value === 'number' && o.value >= 0 && o.value <= 1).toBe(true);
              expect(o.relevance_score).toBe(o.value);
              break;
            case 'extractor':
              expect(Object.keys(o.value as object).sort()).toEqual([...fields].sort());
              break;
            case 'summarizer':
              expect(typeof o.value === 'string' && o.value.length > 0).toBe(true);
              break;
            case 'find_moments': {
              expect(o.value).toMatchObject({ event_type: expect.any(String) as string });
              const { min_seconds, max_seconds } = ctx.scanner;
              const windowLength = ctx.window.endMs - ctx.window.startMs;
              if (min_seconds !== undefined) expect(duration_ms).toBeGreaterThanOrEqual(Math.min(min_seconds * 1000, windowLength) - 1);
              if (max_seconds !== undefined) expect(duration_ms).toBeLessThanOrEqual(max_seconds * 1000 + 1);
              break;
            }
          }
        }

        // Ranked by relevance (the monitor's single false answer aside).
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.relevance_score).toBeGreaterThanOrEqual(out[i]!.relevance_score);

        if (ctx.scanner.type === 'monitor') {
          // SPEC rule 1: matches only, or exactly one false observation over the full source.
          const falses = out.filter((o) => o.value === false);
          expect(out.length).toBeGreaterThan(0);
          if (falses.length) {
            expect(out).toHaveLength(1);
            expect(falses[0]!.evidence).toMatchObject({ start_ms: 0, end_ms: ctx.source.endMs });
          }
        }
        if (ctx.scanner.type === 'summarizer') expect(out.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 400 },
    );
  });

  it('an unsupported recording gives zero observations, never a false one', () => {
    fc.assert(
      fc.property(contextArb, (ctx) => {
        expect(enforceContract({ status: 'unsupported', reason: 'no grounded concept' }, ctx)).toEqual([]);
      }),
    );
  });

  const monitorCtx: ContractContext = {
    scanner: { type: 'monitor' },
    mediaKind: 'audio',
    source: { startMs: 0, endMs: 60_000 },
    window: { startMs: 0, endMs: 60_000 },
    maxObservations: 50,
    hasTranscript: false,
  };

  it('a monitor with no match answers one false observation covering the full source', () => {
    const out = enforceContract({ status: 'answered', findings: [] }, monitorCtx);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ value: false, value_type: 'boolean', semantics: 'match_found' });
    expect(out[0]!.evidence).toMatchObject({ start_ms: 0, end_ms: 60_000, duration_ms: 60_000 });
  });

  it('a monitor with matches keeps only the true ones, ranked', () => {
    const out = enforceContract(
      {
        status: 'answered',
        findings: [
          { value: true, relevance_score: 0.4, start_ms: 1000, end_ms: 2000 },
          { value: false, relevance_score: 0.9 },
          { value: true, relevance_score: 0.8, start_ms: 5000, end_ms: 9000 },
        ],
      },
      monitorCtx,
    );
    expect(out.map((o) => [o.value, o.evidence.start_ms])).toEqual([
      [true, 5000],
      [true, 1000],
    ]);
  });

  it('maps unknown classifier labels to other and keeps configured labels case-canonical', () => {
    const ctx: ContractContext = { ...monitorCtx, scanner: { type: 'classifier', output: { labels } } };
    const out = enforceContract(
      {
        status: 'answered',
        findings: [
          { value: 'GOAL', relevance_score: 0.9 },
          { value: 'penalty', relevance_score: 0.5 },
        ],
      },
      ctx,
    );
    expect(out.map((o) => o.value)).toEqual(['goal', 'other']);
  });

  it('keeps extractor output to the requested fields, unknown ones dropped and missing ones null', () => {
    const ctx: ContractContext = { ...monitorCtx, scanner: { type: 'extractor', output: { fields } } };
    const [o] = enforceContract(
      { status: 'answered', findings: [{ value: { scene_count: 3, secret_field: 'leak', dominant_color: { nested: 1 } }, relevance_score: 1 }] },
      ctx,
    );
    expect(o?.value).toEqual({ duration_seconds: null, scene_count: 3, dominant_color: null });
  });

  it('drops non-finite scores and clamps scorer values into [0, 1]', () => {
    const ctx: ContractContext = { ...monitorCtx, scanner: { type: 'scorer' } };
    const out = enforceContract({ status: 'answered', findings: [{ value: Number.NaN }, { value: 1.7 }, { value: -2 }] }, ctx);
    expect(out.map((o) => o.value)).toEqual([1, 0]);
  });

  it('shapes find_moments to min/max seconds inside the window and merges near-duplicates', () => {
    const ctx: ContractContext = {
      ...monitorCtx,
      mediaKind: 'video',
      scanner: { type: 'find_moments', min_seconds: 10, max_seconds: 20 },
      window: { startMs: 10_000, endMs: 50_000 },
    };
    const out = enforceContract(
      {
        status: 'answered',
        findings: [
          { value: { event_type: 'cut' }, relevance_score: 0.9, start_ms: 20_000, end_ms: 22_000 }, // grows to 10 s from its start
          { value: { event_type: 'cut' }, relevance_score: 0.8, start_ms: 20_500, end_ms: 22_500 }, // duplicate of the first
          { value: { event_type: 'loud' }, relevance_score: 0.7, start_ms: 30_000, end_ms: 70_000 }, // clamped to the window's end, cut to 20 s from its start
          { value: { event_type: 'none' }, relevance_score: 0.6 }, // no range: dropped
        ],
      },
      ctx,
    );
    expect(out.map((o) => [o.evidence.start_ms, o.evidence.end_ms, o.evidence.evidence_kind])).toEqual([
      [20_000, 30_000, 'visual'],
      [30_000, 50_000, 'visual'],
    ]);
  });
});
