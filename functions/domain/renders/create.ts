import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { idsFor, restartIfUnstarted, type IdClaims } from '../id-claims.js';
import type { Page, PageRequest } from '../pages.js';
import type { RunStore } from '../runs/ports.js';
import type { MomentRecord } from '../runs/model.js';
import { renderedMsOf, type RenderRecord, type RenderSettings, type RenderStore, type RenderWorkflowStarter } from './model.js';
import { isPortrait, RENDER_LIMITS } from './presets.js';
import { settleRender } from './pipeline.js';

export interface RenderDeps {
  renders: RenderStore;
  runs: Pick<RunStore, 'getAnalysis' | 'getRun' | 'listMoments'>;
  workflows: RenderWorkflowStarter;
  claims: IdClaims;
  /** A transcriber is configured (TRANSCRIBER is not `none`): captions can have words. */
  captionsAvailable: boolean;
}

/** Refusals that depend on the settings alone, before anything is read. */
function checkSettings(settings: RenderSettings, captionsAvailable: boolean): void {
  if (settings.framing.mode === 'stacked' && !isPortrait(settings.output.aspect_ratio)) {
    throw new ApiError('validation_failed', 'Stacked framing needs a portrait aspect ratio (taller than wide, e.g. 9:16 or 4:5).', 'render.framing.mode');
  }
  if (settings.captions.enabled && !captionsAvailable) {
    throw new ApiError(
      'captions_unavailable',
      'Captions need word timings, and this deployment has no transcriber configured. Set TRANSCRIBER: aws-transcribe on AWS; locally npm start runs moonshine unless TRANSCRIBER says otherwise (pocketsphinx, or whisper-cpp with WHISPER_CPP_BIN and WHISPER_MODEL). Then analyse again, or render with captions.enabled false.',
      'render.captions.enabled',
    );
  }
}

/**
 * The requested moments, in request order, each a video moment of the analysis (DESIGN 10):
 * unknown, foreign, observation and audio moment ids are 400 moment_not_found naming the index.
 */
async function requestedMoments(deps: Pick<RenderDeps, 'runs'>, accountId: string, analysisId: string, momentIds: string[]): Promise<MomentRecord[]> {
  const analysis = await deps.runs.getAnalysis(accountId, analysisId);
  if (!analysis) throw notFound('analysis');
  if (analysis.status !== 'completed') {
    throw new ApiError('analysis_not_completed', `The analysis is ${analysis.status}; moments render once it is completed.`, 'analysis_id');
  }
  const run = await deps.runs.getRun(accountId, analysis.runId);
  const video = run?.mediaKind === 'video';
  const moments = new Map((await deps.runs.listMoments(accountId, analysisId)).map((m) => [m.id, m]));
  return momentIds.map((id, index) => {
    const moment = moments.get(id);
    if (!moment || !video) throw new ApiError('moment_not_found', `${id} is not a video moment of analysis ${analysisId}.`, `moment_ids[${index}]`);
    return moment;
  });
}

/**
 * POST /v1/renders: checks the request, records the render (consuming proof allowance for a
 * proof analysis in the same transaction), then starts the render workflow. Renders cost no
 * credits. Under an Idempotency-Key the render id is claimed first, and a render an earlier
 * attempt created under it is the answer (its workflow started again if that attempt could not).
 */
/** POST /v1/renders as validated at the edge, every default filled in. */
interface RenderCreate {
  analysis_id: string;
  moment_ids: string[];
  render: RenderSettings;
}

export async function submitRender(deps: RenderDeps, accountId: string, input: RenderCreate, idempotencyKey?: string): Promise<RenderRecord> {
  const { renderId } = await idsFor(deps.claims, accountId, 'render', idempotencyKey, () => ({ renderId: newId('render') }));
  const earlier = idempotencyKey === undefined ? undefined : await alreadyCreated(deps, accountId, renderId);
  if (earlier) return earlier;

  const settings: RenderSettings = input.render;
  checkSettings(settings, deps.captionsAvailable);
  if (new Set(input.moment_ids).size !== input.moment_ids.length) {
    throw new ApiError('validation_failed', 'moment_ids must not repeat an id.', 'moment_ids');
  }
  const moments = await requestedMoments(deps, accountId, input.analysis_id, input.moment_ids);
  const analysis = await deps.runs.getAnalysis(accountId, input.analysis_id);
  const proofMs = analysis?.proof ? moments.reduce((sum, m) => sum + renderedMsOf(m), 0) : 0;
  if (proofMs > RENDER_LIMITS.proofAllowanceMs) throw proofExhausted(proofMs);

  const now = nowIso();
  const render: RenderRecord = {
    renderId,
    accountId,
    analysisId: input.analysis_id,
    momentIds: [...input.moment_ids],
    settings,
    status: 'queued',
    assets: {},
    proofMs,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  const outcome = await deps.renders.create(render, RENDER_LIMITS.proofAllowanceMs);
  if (outcome === 'already_created') {
    const raced = await alreadyCreated(deps, accountId, renderId);
    if (raced) return raced;
  }
  if (outcome === 'proof_allowance_exhausted') throw proofExhausted(proofMs);
  try {
    await deps.workflows.startRender({ accountId, renderId, momentIds: render.momentIds });
  } catch (cause) {
    // Under a key, a retry with it starts the queued render again; without one nothing would: it fails now (it cost nothing).
    if (idempotencyKey === undefined) await settleRender(deps, { accountId, renderId });
    throw new ApiError(
      'queue_unavailable',
      'The render could not be queued. Retry with backoff (under the same Idempotency-Key, if you sent one).',
      undefined,
      { cause },
    );
  }
  return render;
}

const proofExhausted = (proofMs: number) =>
  new ApiError(
    'proof_allowance_exhausted',
    `The moments of a proof analysis render up to ${RENDER_LIMITS.proofAllowanceMs / 1000} s in total per account; the ones asked for total ${proofMs / 1000} s.`,
    'moment_ids',
  );

async function alreadyCreated(deps: Pick<RenderDeps, 'renders' | 'workflows'>, accountId: string, renderId: string): Promise<RenderRecord | undefined> {
  const render = await deps.renders.get(accountId, renderId);
  if (render) await restartIfUnstarted(render.status === 'queued', () => deps.workflows.startRender({ accountId, renderId, momentIds: render.momentIds }));
  return render;
}

export async function getRender(renders: Pick<RenderStore, 'get'>, accountId: string, renderId: string): Promise<RenderRecord> {
  const render = await renders.get(accountId, renderId);
  if (!render) throw notFound('render');
  return render;
}

export const listRenders = (renders: Pick<RenderStore, 'list'>, accountId: string, query: PageRequest): Promise<Page<RenderRecord>> =>
  renders.list(accountId, { limit: query.limit, cursor: query.cursor });
