import { limitsOf } from '../accounts/accounts.js';
import { nowIso } from '../clock.js';
import { announcement } from '../events/model.js';
import type { AccountStore } from '../accounts/ports.js';
import { retentionTags } from '../uploads/retention.js';
import type { RunStore, SourceUrlSigner } from '../runs/ports.js';
import type { TerminalError } from '../runs/model.js';
import type { Size } from './framing.js';
import { planMomentRender, type MomentRenderer } from './plan.js';
import type { SubjectDetector } from './subjects.js';
import { renderedMsOf, segmentsOf, type RenderAsset, type RenderRecord, type RenderRef, type RenderStore } from './model.js';
import { outputSizeOf, type CaptionPresetId } from './presets.js';
import { captionScript, wordsOnOutputTimeline } from './captions.js';
import type { MomentRecord } from '../runs/model.js';

export interface RenderPipelineDeps {
  renders: RenderStore;
  runs: Pick<RunStore, 'getAnalysis' | 'getRun' | 'listMoments'>;
  accounts: Pick<AccountStore, 'getAccount'>;
  signSourceUrl: SourceUrlSigner;
  renderer: MomentRenderer;
  detector: SubjectDetector | null;
}

/** Where a rendered moment lives: under the account, beside its uploads and sources. */
const renderAssetKey = (accountId: string, renderId: string, momentId: string): string => `accounts/${accountId}/renders/${renderId}/${momentId}.mp4`;

const failed = (momentId: string, error: TerminalError): RenderAsset => ({ momentId, status: 'failed', error });

/**
 * The RenderMoment step (a container task): renders one moment and records its asset at once.
 * A moment that cannot be rendered gets a failed asset with the reason and the step succeeds, so
 * the other moments go on. A retried step finds its completed asset and does nothing.
 */
export async function renderMoment(deps: RenderPipelineDeps, ref: RenderRef & { momentId: string }): Promise<RenderAsset['status'] | 'settled'> {
  const render = await deps.renders.get(ref.accountId, ref.renderId);
  if (!render || (render.status !== 'queued' && render.status !== 'processing')) return 'settled';
  if (render.assets[ref.momentId]?.status === 'completed') return 'completed';
  await deps.renders.markProcessing(ref, nowIso());

  const asset = await renderedAsset(deps, render, ref.momentId);
  await deps.renders.putAsset(ref, asset, nowIso());
  return asset.status;
}

async function renderedAsset(deps: RenderPipelineDeps, render: RenderRecord, momentId: string): Promise<RenderAsset> {
  const analysis = await deps.runs.getAnalysis(render.accountId, render.analysisId);
  const run = analysis && (await deps.runs.getRun(render.accountId, analysis.runId));
  const moment = (await deps.runs.listMoments(render.accountId, render.analysisId)).find((m) => m.id === momentId);
  if (!run || !moment) return failed(momentId, { code: 'moment_unavailable', message: 'The moment or its analysis no longer exists.' });
  const account = await deps.accounts.getAccount(render.accountId);
  const retentionDays = run.oneOff?.retentionDays ?? (account ? limitsOf(account).retentionDays : 7);
  const objectKey = renderAssetKey(render.accountId, render.renderId, momentId);
  const captions = render.settings.captions.enabled ? captionsOf(moment, render.settings.captions.preset_id) : null;
  try {
    const { plan } = await planMomentRender(deps, {
      sourceUrl: await deps.signSourceUrl(run.objectKey),
      segments: segmentsOf(moment),
      output: outputSizeOf(render.settings.output.aspect_ratio),
      mode: render.settings.framing.mode,
      captions,
      outputKey: objectKey,
      tags: retentionTags(retentionDays),
    });
    const file = await deps.renderer.render(plan);
    return { momentId, status: 'completed', objectKey, ...file, captions: captions !== null };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failed(momentId, { code: 'render_failed', message: `The moment could not be rendered: ${message}` });
  }
}

/**
 * A moment's captions: its words (kept with it by the analysis) on the clip's timeline, in the
 * preset's style. Null when no word is left to show (nobody spoke, or the analysis had no
 * transcriber): the moment renders without captions and its asset says so.
 */
function captionsOf(moment: MomentRecord, presetId: CaptionPresetId): ((output: Size) => string) | null {
  const words = wordsOnOutputTimeline(moment.words ?? [], segmentsOf(moment));
  if (words.length === 0) return null;
  return (output) => captionScript(words, presetId, output, renderedMsOf(moment));
}

/**
 * The SettleRender step: every moment without an asset (its task crashed past its retries) gets a
 * failed one; the render is completed when at least one asset is, else failed; the status and
 * render.completed|failed go into one transaction. Settling twice changes nothing.
 */
export async function settleRender(deps: Pick<RenderPipelineDeps, 'renders'>, ref: RenderRef): Promise<RenderRecord | undefined> {
  const render = await deps.renders.get(ref.accountId, ref.renderId);
  if (!render || (render.status !== 'queued' && render.status !== 'processing')) return render;
  const assets = Object.fromEntries(
    render.momentIds.map((id) => [id, render.assets[id] ?? failed(id, { code: 'render_failed', message: 'The render task for this moment did not finish.' })]),
  );
  const rendered = Object.values(assets).filter((a) => a.status === 'completed').length;
  const status = rendered > 0 ? 'completed' : 'failed';
  const now = nowIso();
  const settled: RenderRecord = {
    ...render,
    assets,
    status,
    error: status === 'failed' ? { code: 'render_failed', message: 'No moment could be rendered; each asset says why.' } : null,
    updatedAt: now,
  };
  const written = await deps.renders.settle(settled, [announcement(`render.${status}`, { kind: 'render', renderId: render.renderId }, now)], now);
  return written ? settled : deps.renders.get(ref.accountId, ref.renderId);
}
