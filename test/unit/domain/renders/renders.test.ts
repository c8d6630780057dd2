/**
 * Render creation and settlement against in-memory ports: the checks of POST /v1/renders (409
 * before completion, moment_not_found naming the index, captions_unavailable, stacked framing,
 * the proof render allowance), idempotent creation under a key, and settling (a moment whose task
 * never finished fails alone; the terminal event is announced with the state change).
 */
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../../../functions/domain/errors.js';
import type { IdClaims } from '../../../../functions/domain/id-claims.js';
import { submitRender, type RenderDeps } from '../../../../functions/domain/renders/create.js';
import type { RenderRecord, RenderStore } from '../../../../functions/domain/renders/model.js';
import { renderMoment, settleRender, type RenderPipelineDeps } from '../../../../functions/domain/renders/pipeline.js';
import type { MomentRenderer } from '../../../../functions/domain/renders/plan.js';
import type { Announcement } from '../../../../functions/domain/events/model.js';
import type { AnalysisRecord, MomentRecord, RunRecord } from '../../../../functions/domain/runs/model.js';
import { renderCreateSchema } from '../../../../functions/resources/renders/request.js';

const ACCOUNT = 'acct_0193a4b1c2d37e8f9a0b1c2d3e4f5a60';
const ANALYSIS = 'ana_0193a4b1c2d37e8f9a0b1c2d3e4f5a64';
const codeOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as ApiError | undefined;

const moment = (id: string, startMs: number, endMs: number): MomentRecord => ({
  object: 'moment',
  id,
  analysis_id: ANALYSIS,
  run_id: null,
  observation_id: null,
  rank: 0,
  start_ms: startMs,
  end_ms: endMs,
  duration_ms: endMs - startMs,
  score: 1,
  title: 't',
  event_type: 'e',
  transcript_excerpt: '',
  edit: { mode: 'continuous', subclips: [] },
});

function memoryRenders(allowanceUsedMs = 0) {
  const renders = new Map<string, RenderRecord>();
  const announced: Announcement[] = [];
  const proof = { usedMs: allowanceUsedMs };
  const store: RenderStore = {
    create(render, allowance) {
      if (renders.has(render.renderId)) return Promise.resolve('already_created');
      if (render.proofMs > 0 && proof.usedMs + render.proofMs > allowance) return Promise.resolve('proof_allowance_exhausted');
      proof.usedMs += render.proofMs;
      renders.set(render.renderId, structuredClone(render));
      return Promise.resolve('created');
    },
    get: (_a, id) => Promise.resolve(structuredClone(renders.get(id))),
    list: () => Promise.resolve({ items: [...renders.values()], nextCursor: null }),
    markProcessing(ref) {
      const render = renders.get(ref.renderId);
      if (render?.status !== 'queued') return Promise.resolve(false);
      render.status = 'processing';
      return Promise.resolve(true);
    },
    putAsset(ref, asset) {
      const render = renders.get(ref.renderId);
      if (!render || (render.status !== 'queued' && render.status !== 'processing')) return Promise.resolve(false);
      render.assets[asset.momentId] = asset;
      return Promise.resolve(true);
    },
    settle(render, announcements) {
      const stored = renders.get(render.renderId);
      if (!stored || (stored.status !== 'queued' && stored.status !== 'processing')) return Promise.resolve(false);
      renders.set(render.renderId, structuredClone(render));
      announced.push(...announcements);
      return Promise.resolve(true);
    },
  };
  return { store, renders, announced, proof };
}

function world(
  options: { status?: AnalysisRecord['status']; mediaKind?: RunRecord['mediaKind']; proof?: boolean; captions?: boolean; moments?: MomentRecord[] } = {},
) {
  const analysis = {
    analysisId: ANALYSIS,
    accountId: ACCOUNT,
    runId: 'run_1',
    status: options.status ?? 'completed',
    proof: options.proof ?? false,
  } as AnalysisRecord;
  const run = { runId: 'run_1', mediaKind: options.mediaKind ?? 'video', objectKey: 'accounts/a/uploads/u' } as RunRecord;
  const moments = options.moments ?? [moment('mom_a', 0, 10_000), moment('mom_b', 20_000, 45_000), moment('mom_c', 50_000, 80_000)];
  const renders = memoryRenders();
  const started: string[] = [];
  const claimed = new Map<string, Record<string, string>>();
  const claims: IdClaims = {
    claim<T extends Record<string, string>>(accountId: string, purpose: string, key: string, proposed: T): Promise<T> {
      const id = `${accountId}|${purpose}|${key}`;
      if (!claimed.has(id)) claimed.set(id, proposed);
      return Promise.resolve(claimed.get(id) as T);
    },
  };
  const deps: RenderDeps = {
    renders: renders.store,
    runs: {
      getAnalysis: (_a, id) => Promise.resolve(id === ANALYSIS ? analysis : undefined),
      getRun: () => Promise.resolve(run),
      listMoments: () => Promise.resolve(moments),
    },
    workflows: { startRender: (ref) => Promise.resolve(void started.push(ref.renderId)) },
    claims,
    captionsAvailable: options.captions ?? false,
  };
  return { deps, renders, started };
}

const request = (body: Record<string, unknown>) => renderCreateSchema.parse({ analysis_id: ANALYSIS, moment_ids: ['mom_a'], ...body });

describe('submitRender', () => {
  it('records a queued render with its settings and starts its workflow', async () => {
    const { deps, started } = world();
    const render = await submitRender(deps, ACCOUNT, request({ moment_ids: ['mom_b', 'mom_a'] }));
    expect(render).toMatchObject({ status: 'queued', momentIds: ['mom_b', 'mom_a'], proofMs: 0, settings: { framing: { mode: 'auto' } } });
    expect(render.renderId).toMatch(/^rnd_[0-9a-f]{32}$/);
    expect(started).toEqual([render.renderId]);
  });

  it('409 analysis_not_completed before the analysis completes; 404 for an unknown analysis', async () => {
    expect((await codeOf(submitRender(world({ status: 'processing' }).deps, ACCOUNT, request({}))))?.code).toBe('analysis_not_completed');
    expect((await codeOf(submitRender(world().deps, ACCOUNT, request({ analysis_id: 'ana_other' }))))?.code).toBe('not_found');
  });

  it('400 moment_not_found names the first bad index; audio moments are refused', async () => {
    const error = await codeOf(submitRender(world().deps, ACCOUNT, request({ moment_ids: ['mom_a', 'obs_1'] })));
    expect([error?.code, error?.param]).toEqual(['moment_not_found', 'moment_ids[1]']);
    const audio = await codeOf(submitRender(world({ mediaKind: 'audio' }).deps, ACCOUNT, request({})));
    expect([audio?.code, audio?.param]).toEqual(['moment_not_found', 'moment_ids[0]']);
  });

  it('captions without a transcriber: 400 captions_unavailable saying how to enable one', async () => {
    const error = await codeOf(submitRender(world().deps, ACCOUNT, request({ render: { captions: { enabled: true } } })));
    expect(error?.code).toBe('captions_unavailable');
    expect(error?.message).toMatch(/TRANSCRIBER/);
    await expect(submitRender(world({ captions: true }).deps, ACCOUNT, request({ render: { captions: { enabled: true } } }))).resolves.toMatchObject({
      status: 'queued',
    });
  });

  it('stacked framing needs a portrait output', async () => {
    const error = await codeOf(submitRender(world().deps, ACCOUNT, request({ render: { output: { aspect_ratio: '16:9' }, framing: { mode: 'stacked' } } })));
    expect([error?.code, error?.param]).toEqual(['validation_failed', 'render.framing.mode']);
  });

  it('a repeated moment id is refused', async () => {
    expect((await codeOf(submitRender(world().deps, ACCOUNT, request({ moment_ids: ['mom_a', 'mom_a'] }))))?.param).toBe('moment_ids');
  });

  it('proof analyses: up to 60 s of moments in total per account, then 402 proof_allowance_exhausted', async () => {
    const { deps, renders } = world({ proof: true });
    await expect(submitRender(deps, ACCOUNT, request({ moment_ids: ['mom_a', 'mom_b'] }))).resolves.toMatchObject({ proofMs: 35_000 });
    expect((await codeOf(submitRender(deps, ACCOUNT, request({ moment_ids: ['mom_c'] }))))?.code).toBe('proof_allowance_exhausted');
    expect(renders.proof.usedMs).toBe(35_000);
    // One request over 60 s on its own never reaches the store.
    expect((await codeOf(submitRender(world({ proof: true }).deps, ACCOUNT, request({ moment_ids: ['mom_b', 'mom_c', 'mom_a'] }))))?.code).toBe(
      'proof_allowance_exhausted',
    );
  });

  it('the same Idempotency-Key answers the first render and creates nothing more', async () => {
    const { deps, renders, started } = world();
    const first = await submitRender(deps, ACCOUNT, request({}), 'key-1');
    const again = await submitRender(deps, ACCOUNT, request({}), 'key-1');
    expect(again.renderId).toBe(first.renderId);
    expect(renders.renders.size).toBe(1);
    // The first start ran; the retry restarts only a render still queued (starts are idempotent by name).
    expect(new Set(started)).toEqual(new Set([first.renderId]));
  });
});

describe('render pipeline', () => {
  const pipeline = (deps: RenderDeps, render: MomentRenderer['render']): RenderPipelineDeps => ({
    renders: deps.renders,
    runs: deps.runs,
    accounts: { getAccount: () => Promise.resolve(undefined) },
    signSourceUrl: (key) => Promise.resolve(`https://signed/${key}`),
    // A 16:9 source with sound whose sampled moment shows nothing: the plan crops around the centre.
    renderer: { probe: () => Promise.resolve({ width: 1920, height: 1080, hasAudio: true }), sample: () => Promise.resolve({ frames: [], greys: [] }), render },
    detector: null,
  });

  it('each moment records its asset; a failing moment fails alone; settling announces render.completed once', async () => {
    const { deps, renders } = world();
    const render = await submitRender(deps, ACCOUNT, request({ moment_ids: ['mom_a', 'mom_b', 'mom_c'] }));
    const renderer: MomentRenderer['render'] = (plan) =>
      plan.segments[0]?.startMs === 20_000
        ? Promise.reject(new Error('ffmpeg failed'))
        : Promise.resolve({ width: 1080, height: 1920, durationMs: 10_000, sizeBytes: 1234 });
    const ref = { accountId: ACCOUNT, renderId: render.renderId };
    expect(await renderMoment(pipeline(deps, renderer), { ...ref, momentId: 'mom_a' })).toBe('completed');
    expect(await renderMoment(pipeline(deps, renderer), { ...ref, momentId: 'mom_b' })).toBe('failed');
    // mom_c's task never finished.
    const settled = await settleRender(pipeline(deps, renderer), ref);
    expect(settled?.status).toBe('completed');
    expect(settled?.assets.mom_a).toMatchObject({
      status: 'completed',
      objectKey: `accounts/${ACCOUNT}/renders/${render.renderId}/mom_a.mp4`,
      captions: false,
    });
    expect(settled?.assets.mom_b).toMatchObject({ status: 'failed', error: { code: 'render_failed' } });
    expect(settled?.assets.mom_c).toMatchObject({ status: 'failed', error: { code: 'render_failed' } });
    await settleRender(pipeline(deps, renderer), ref);
    expect(renders.announced.map((a) => a.type)).toEqual(['render.completed']);
    // A settled render takes no more assets.
    expect(await renderMoment(pipeline(deps, renderer), { ...ref, momentId: 'mom_c' })).toBe('settled');
  });

  it('no moment rendered: render.failed', async () => {
    const { deps, renders } = world();
    const render = await submitRender(deps, ACCOUNT, request({}));
    const settled = await settleRender(
      pipeline(deps, () => Promise.reject(new Error('x'))),
      { accountId: ACCOUNT, renderId: render.renderId },
    );
    expect(settled).toMatchObject({ status: 'failed', error: { code: 'render_failed' } });
    expect(renders.announced.map((a) => a.type)).toEqual(['render.failed']);
  });

  it("captions: the renderer gets an ASS script of the moment's words only where there are words; the asset says whether they were burned in", async () => {
    const spoken = {
      ...moment('mom_a', 0, 10_000),
      words: [
        { text: 'hello', start_ms: 1_000, end_ms: 1_400 },
        { text: 'world', start_ms: 1_500, end_ms: 1_900 },
      ],
    };
    const quiet = { ...moment('mom_b', 20_000, 45_000), words: [] };
    const untranscribed = moment('mom_c', 50_000, 80_000);
    const { deps } = world({ captions: true, moments: [spoken, quiet, untranscribed] });
    const render = await submitRender(
      deps,
      ACCOUNT,
      request({ moment_ids: ['mom_a', 'mom_b', 'mom_c'], render: { captions: { enabled: true, preset_id: 'clean' } } }),
    );
    const scripts: (string | null)[] = [];
    const renderer: MomentRenderer['render'] = (plan) => {
      scripts.push(plan.captions);
      return Promise.resolve({ width: 1080, height: 1920, durationMs: 10_000, sizeBytes: 1234 });
    };
    const ref = { accountId: ACCOUNT, renderId: render.renderId };
    for (const momentId of ['mom_a', 'mom_b', 'mom_c']) await renderMoment(pipeline(deps, renderer), { ...ref, momentId });
    expect(scripts[0]).toContain('Dialogue: 0,0:00:01.00,0:00:02.30,Caption,,0,0,0,,hello world');
    expect(scripts.slice(1)).toEqual([null, null]);
    const stored = await deps.renders.get(ACCOUNT, render.renderId);
    expect([stored?.assets.mom_a, stored?.assets.mom_b, stored?.assets.mom_c].map((a) => a?.status === 'completed' && a.captions)).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe('an execution that ended early', () => {
  it('settles the render from the execution input: moments without an asset fail', async () => {
    const { handler } = await import('../../../../functions/workflows/render/settle-ended-render.js');
    expect(handler).toBeTypeOf('function');
    const { executionEndedSchema } = await import('../../../../functions/workflows/task.js');
    const { renderRefSchema } = await import('../../../../functions/workflows/render/render-ref.js');
    const parsed = executionEndedSchema(renderRefSchema).parse({
      detail: { status: 'TIMED_OUT', input: JSON.stringify({ accountId: ACCOUNT, renderId: 'rnd_1', momentIds: ['mom_a'] }) },
    });
    expect(parsed.detail.input).toEqual({ accountId: ACCOUNT, renderId: 'rnd_1' });
  });
});

describe('a render whose workflow cannot be started', () => {
  it('answers 503 queue_unavailable; without a key the render fails at once, with one it stays queued for the retry', async () => {
    const unkeyed = world();
    unkeyed.deps.workflows = { startRender: () => Promise.reject(new Error('throttled')) };
    expect((await codeOf(submitRender(unkeyed.deps, ACCOUNT, request({}))))?.code).toBe('queue_unavailable');
    expect([...unkeyed.renders.renders.values()].map((r) => r.status)).toEqual(['failed']);

    const keyed = world();
    const starts: string[] = [];
    let fail = true;
    keyed.deps.workflows = { startRender: (ref) => (fail ? Promise.reject(new Error('throttled')) : Promise.resolve(void starts.push(ref.renderId))) };
    expect((await codeOf(submitRender(keyed.deps, ACCOUNT, request({}), 'k')))?.code).toBe('queue_unavailable');
    fail = false;
    const retried = await submitRender(keyed.deps, ACCOUNT, request({}), 'k');
    expect(retried.status).toBe('queued');
    expect(starts).toEqual([retried.renderId]);
  });
});
