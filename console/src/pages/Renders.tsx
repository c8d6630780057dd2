/** Renders: choose moments of a completed analysis, aspect, captions and framing; progress; play and download each MP4. */
import { useState } from 'preact/hooks';
import { ok, type PostBody, type Render, v1 } from '../api.js';
import { bytes, clock, ErrorBox, formValues, ListFooter, Status, when } from '../components/ui.js';
import { useAction, useList, useLoad } from '../hooks.js';
import { usePath } from '../router.js';

type RenderOptions = NonNullable<PostBody<'/v1/renders'>['render']>;
type Aspect = NonNullable<NonNullable<RenderOptions['output']>['aspect_ratio']>;
type CaptionPreset = NonNullable<NonNullable<RenderOptions['captions']>['preset_id']>;
type Framing = NonNullable<NonNullable<RenderOptions['framing']>['mode']>;
const rendering = (r: Render) => r.status === 'queued' || r.status === 'processing';

export function RendersPage() {
  const { query } = usePath();
  const presets = useLoad(() => ok(v1.GET('/v1/render-presets')), []);
  const analyses = useLoad(() => ok(v1.GET('/v1/analyses', { params: { query: { status: 'completed', limit: '50' } } })), []);
  const [analysisId, setAnalysisId] = useState(query.get('analysis') ?? '');
  const chosen = analysisId || analyses.data?.data[0]?.analysis_id || '';
  const moments = useLoad(
    () =>
      chosen ? ok(v1.GET('/v1/analyses/{analysis_id}/moments', { params: { path: { analysis_id: chosen } } })).then((m) => m.moments) : Promise.resolve([]),
    [chosen],
  );
  const renders = useList((cursor) => ok(v1.GET('/v1/renders', { params: { query: { limit: '10', ...(cursor ? { cursor } : {}) } } })));
  const create = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form);
    const momentIds = new FormData(form).getAll('moment_id').map(String);
    await ok(
      v1.POST('/v1/renders', {
        body: {
          analysis_id: chosen,
          moment_ids: momentIds,
          render: {
            output: { format: 'mp4', aspect_ratio: values.aspect_ratio as Aspect },
            captions: { enabled: values.captions === 'on', ...(values.captions === 'on' ? { preset_id: values.preset_id as CaptionPreset } : {}) },
            framing: { mode: values.framing as Framing },
          },
        },
      }),
    );
    renders.reload();
  });
  const p = presets.data;
  return (
    <>
      <section aria-labelledby="new-render">
        <h2 id="new-render">Render moments</h2>
        <ErrorBox error={presets.error ?? analyses.error ?? moments.error} />
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run(event.currentTarget);
          }}
        >
          <label>
            Analysis{' '}
            <select value={chosen} onChange={(e) => setAnalysisId(e.currentTarget.value)}>
              {(analyses.data?.data ?? []).map((a) => (
                <option key={a.analysis_id} value={a.analysis_id}>
                  {a.kind === 'scanner_run' ? `run ${a.run_id}` : a.source?.kind === 'url' ? (a.source.title ?? a.source.host) : a.analysis_id} (
                  {when(a.created_at)})
                </option>
              ))}
            </select>
          </label>
          <fieldset>
            <legend>Moments</legend>
            {(moments.data ?? []).map((m, i) => (
              <label class="check" key={m.id}>
                <input type="checkbox" name="moment_id" value={m.id} defaultChecked={i === 0} /> {m.title} ({clock(m.start_ms)}-{clock(m.end_ms)}, score{' '}
                {m.score.toFixed(2)})
              </label>
            ))}
            {moments.data?.length === 0 && <p class="muted">This analysis has no video moments to render.</p>}
          </fieldset>
          {p && (
            <>
              <label>
                Aspect ratio{' '}
                <select name="aspect_ratio">
                  {p.aspect_ratios.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.id}
                      {a.width ? ` (${a.width}×${a.height})` : ''}
                    </option>
                  ))}
                </select>
              </label>
              <label class="check">
                <input type="checkbox" name="captions" /> Burn in captions
              </label>
              <label>
                Captions preset{' '}
                <select name="preset_id">
                  {p.caption_presets.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Framing{' '}
                <select name="framing">
                  {p.framing_modes.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
              </label>
            </>
          )}
          <button type="submit" disabled={create.busy || !chosen || !moments.data?.length}>
            Render
          </button>
        </form>
        <ErrorBox error={create.error} />
      </section>
      <section aria-labelledby="render-list">
        <h2 id="render-list">Renders</h2>
        {renders.items.map((r) => (
          <RenderCard key={r.render_id} initial={r} />
        ))}
        <ListFooter list={renders} empty="No renders yet." />
      </section>
    </>
  );
}

/** One render, polled while it is queued or processing; each finished MP4 playable and downloadable. */
function RenderCard({ initial }: { initial: Render }) {
  const live = useLoad(
    () => (rendering(initial) ? ok(v1.GET('/v1/renders/{render_id}', { params: { path: { render_id: initial.render_id } } })) : Promise.resolve(initial)),
    [initial.render_id],
    { everyMs: 2000, done: (r) => !rendering(r) },
  );
  const r = live.data ?? initial;
  return (
    <article class="card" aria-label={`Render ${r.render_id}`}>
      <p>
        <code>{r.render_id}</code> <Status value={r.status} /> · {r.moment_ids.length} moment(s) · {r.render.output.aspect_ratio} · captions{' '}
        {r.render.captions.enabled ? r.render.captions.preset_id : 'off'} · framing {r.render.framing.mode} · {when(r.created_at)}
      </p>
      {rendering(r) && (
        <p>
          <label>
            Rendering <progress />
          </label>
        </p>
      )}
      <ErrorBox error={live.error ?? (r.error ? new Error(`${r.error.message} (${r.error.code})`) : undefined)} />
      <div class="assets">
        {r.assets.map((asset) =>
          asset.url ? (
            <figure key={asset.moment_id}>
              <video src={asset.url} controls preload="metadata" aria-label={`Render of moment ${asset.moment_id}`} />
              <figcaption>
                {asset.width}×{asset.height} · {clock(asset.duration_ms)} · {bytes(asset.size_bytes)} ·{' '}
                <a href={asset.url} download={`${r.render_id}-${asset.moment_id}.mp4`}>
                  Download MP4
                </a>
              </figcaption>
            </figure>
          ) : (
            <p key={asset.moment_id}>
              {asset.moment_id}: {asset.error?.message ?? asset.status}
            </p>
          ),
        )}
      </div>
    </article>
  );
}
