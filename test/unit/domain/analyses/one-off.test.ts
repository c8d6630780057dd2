/**
 * The one-off analysis use cases against fakes of their ports: the preflight's affordable window,
 * the quote's exact credits, what submission refuses before reserving anything, the record it
 * creates, the refund when the workflow cannot start, and where acquisition runs.
 */
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../../../functions/domain/errors.js';
import { preflightSource, quoteAnalysis, submitOneOff, type OneOffDeps } from '../../../../functions/domain/analyses/one-off.js';
import { acquisitionRunnerFor } from '../../../../functions/domain/runs/steps/mark-processing.js';
import type { AnalysisRecord, RunRecord } from '../../../../functions/domain/runs/model.js';
import type { ReservationOutcome, RunStore } from '../../../../functions/domain/runs/ports.js';
import type { SourceFacts } from '../../../../functions/domain/sources/ports.js';
import { analysisCreateSchema } from '../../../../functions/resources/analyses/request.js';
import { testAccount } from '../../../helpers/unit-fixtures.js';

const GiB = 1024 ** 3;
const URL_ = 'https://media.example.com/episode.mp4';
const account = (overrides: Parameters<typeof testAccount>[0] = {}) => testAccount({ trustedHosts: ['media.example.com'], creditsBalance: 10, ...overrides });

function fakes(facts: Partial<SourceFacts> = {}, outcome: ReservationOutcome = 'created', startFails = false) {
  const created: { run: RunRecord; analysis: AnalysisRecord }[] = [];
  const refunded: RunRecord[] = [];
  const runs = {
    createWithReservation: (run: RunRecord, analysis: AnalysisRecord) => {
      if (outcome === 'created') created.push({ run, analysis });
      return Promise.resolve(outcome);
    },
    failAndRefund: (run: RunRecord) => {
      refunded.push(run);
      return Promise.resolve(true);
    },
  } as unknown as RunStore;
  const deps: OneOffDeps = {
    runs,
    claims: { claim: (_accountId, _purpose, _key, proposed) => Promise.resolve(proposed) },
    allowLoopback: false,
    sources: {
      preflight: () => Promise.resolve({ mediaKind: 'video', durationMs: 600_000, sizeBytes: 1024 ** 2, title: 'Episode', ...facts }),
    },
    workflows: { startAnalysis: () => (startFails ? Promise.reject(new Error('down')) : Promise.resolve()) },
  };
  return { deps, created, refunded };
}

const body = (extra: Record<string, unknown> = {}) =>
  analysisCreateSchema.parse({ source_url: URL_, analysis_start_seconds: 0, analysis_end_seconds: 61, ...extra });
const codeOf = async (promise: Promise<unknown>) =>
  (
    (await promise.then(
      () => undefined,
      (error: unknown) => error,
    )) as ApiError | undefined
  )?.code;

describe('preflight', () => {
  it('offers the window the credits cover, or the proof allowance up to the whole source within 7,200 s', async () => {
    const { deps } = fakes();
    expect(await preflightSource(deps, account({ creditsBalance: 3 }), { source_url: URL_ })).toMatchObject({ maxWindowMs: 600_000, proofAvailable: true });
    expect(await preflightSource(deps, account({ creditsBalance: 3, proofAnalysisId: 'ana_x' }), { source_url: URL_ })).toMatchObject({
      maxWindowMs: 180_000,
      proofAvailable: false,
    });
    expect((await preflightSource(deps, account(), { source_url: URL_ })).source).toMatchObject({
      kind: 'url',
      provider: { kind: 'trusted_host', host: 'media.example.com' },
      duration_ms: 600_000,
    });
  });

  it('refuses an untrusted host before measuring anything', async () => {
    const { deps } = fakes();
    expect(await codeOf(preflightSource(deps, account(), { source_url: 'https://elsewhere.example.com/a.mp4' }))).toBe('untrusted_source_url');
  });
});

describe('quote', () => {
  it('bills 1 credit per started minute of the window, 0 when the proof allowance applies', async () => {
    const { deps } = fakes();
    const quote = (extra: Record<string, unknown>) =>
      quoteAnalysis(deps, account({ creditsBalance: 1 }), analysisCreateSchema.parse({ source_url: URL_, ...extra }));
    expect(await quote({ analysis_start_seconds: 10, analysis_end_seconds: 70 })).toMatchObject({ billedMs: 60_000, credits: 1, affordable: true });
    expect(await quote({ analysis_start_seconds: 10, analysis_end_seconds: 70.5 })).toMatchObject({ credits: 2, affordable: false });
    expect(await quote({ analysis_start_seconds: 0, analysis_end_seconds: 120, use_proof_allowance: true })).toMatchObject({
      credits: 0,
      affordable: true,
      proof: { applies: true },
    });
  });

  it('refuses windows outside the source, backwards ones and proof windows over 7,200 s', async () => {
    const { deps } = fakes({ durationMs: 9_000_000 });
    const code = (start: number, end: number, proof = false) =>
      codeOf(
        quoteAnalysis(
          deps,
          account(),
          analysisCreateSchema.parse({ source_url: URL_, analysis_start_seconds: start, analysis_end_seconds: end, use_proof_allowance: proof }),
        ),
      );
    expect(await code(30, 30)).toBe('window_out_of_range');
    expect(await code(0, 9_001)).toBe('window_out_of_range');
    expect(await code(0, 7_201, true)).toBe('window_out_of_range');
    expect(await code(0, 7_200, true)).toBeUndefined();
  });
});

describe('submission', () => {
  it('reserves the quote with a find_moments question built from the request, and keeps the URL internal', async () => {
    const { deps, created } = fakes();
    const analysis = await submitOneOff(
      deps,
      account(),
      body({ what_to_find: 'laughter', chat_moment_types: ['funny'], speech_cleanup: 'tight', max_moments: 4 }),
    );
    const [{ run } = { run: undefined }] = created;
    expect(analysis).toMatchObject({
      kind: 'one_off',
      status: 'queued',
      reservedCredits: 2,
      proof: false,
      request: { what_to_find: 'laughter', max_moments: 4, speech_cleanup: 'tight' },
    });
    expect(run).toMatchObject({
      scanner: { type: 'find_moments', instructions: 'laughter', max_observations: 4, profile: 'conversation' },
      oneOff: { sourceUrl: URL_, brief: { chatMomentTypes: ['funny'] }, speechCleanup: 'tight', proof: false, maxSourceBytes: 10 * GiB },
      credits: 2,
      objectKey: expect.stringMatching(new RegExp(`^accounts/${analysis.accountId}/sources/${analysis.analysisId}$`)) as unknown,
    });
    expect(JSON.stringify(analysis)).not.toContain('episode.mp4');
  });

  it('refuses, before reserving: too large a source, an unaffordable window, a used proof allowance', async () => {
    const large = fakes({ sizeBytes: 10 * GiB + 1 });
    expect(await codeOf(submitOneOff(large.deps, account(), body()))).toBe('source_too_large');
    const proofLarge = fakes({ sizeBytes: 8 * GiB + 1 });
    expect(await codeOf(submitOneOff(proofLarge.deps, account(), body({ use_proof_allowance: true })))).toBe('source_too_large');
    const poor = fakes();
    expect(await codeOf(submitOneOff(poor.deps, account({ creditsBalance: 1 }), body()))).toBe('insufficient_credits');
    const used = fakes();
    expect(await codeOf(submitOneOff(used.deps, account({ proofAnalysisId: 'ana_1' }), body({ use_proof_allowance: true })))).toBe('proof_allowance_exhausted');
    expect([large, proofLarge, poor, used].flatMap((f) => f.created)).toEqual([]);
  });

  it('maps a lost reservation race to 402, and refunds at once when the workflow cannot start', async () => {
    expect(await codeOf(submitOneOff(fakes({}, 'proof_allowance_exhausted').deps, account(), body({ use_proof_allowance: true })))).toBe(
      'proof_allowance_exhausted',
    );
    expect(await codeOf(submitOneOff(fakes({}, 'insufficient_credits').deps, account(), body()))).toBe('insufficient_credits');
    const down = fakes({}, 'created', true);
    expect(await codeOf(submitOneOff(down.deps, account(), body()))).toBe('queue_unavailable');
    expect(down.refunded.map((r) => r.analysisId)).toEqual(down.created.map((c) => c.run.analysisId));
  });
});

describe('where a source is acquired', () => {
  const work = (origin: NonNullable<RunRecord['oneOff']>['origin'], knownSizeBytes: number | null) => ({ oneOff: { origin, knownSizeBytes } }) as RunRecord;
  const trusted = { kind: 'trusted_host', host: 'media.example.com' } as const;
  const page = { kind: 'provider', provider: { id: 'youtube', name: 'YouTube', kind: 'recorded_video', hostnames: [], resolver: 'yt-dlp' } } as const;

  it('uses the function only for direct downloads of known, modest size; containers otherwise; scanner runs acquire nothing', () => {
    expect(acquisitionRunnerFor('auto', work(trusted, 100 * 1024 ** 2))).toBe('lambda');
    expect(acquisitionRunnerFor('auto', work(trusted, 300 * 1024 ** 2))).toBe('container');
    expect(acquisitionRunnerFor('auto', work(trusted, null))).toBe('container');
    expect(acquisitionRunnerFor('auto', work(page, 1024))).toBe('container');
    expect(acquisitionRunnerFor('lambda', work(page, null))).toBe('lambda');
    expect(acquisitionRunnerFor('auto', {} as RunRecord)).toBe('none');
  });
});
