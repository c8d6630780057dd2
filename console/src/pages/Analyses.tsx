/** One-off analyses of a URL: preflight, quote, submit, cancel; the moments ranked and on the Timeline. */
import { useState } from 'preact/hooks';
import { type Moment, ok, type PostBody, profileOf, profiles, v1 } from '../api.js';
import { Player } from '../components/Player.js';
import { Progress, terminal } from '../components/Progress.js';
import { Choice, clock, ErrorBox, formValues, Link, ListFooter, Loading, numberOr, Status, Table, when } from '../components/ui.js';
import { useAction, useList, useLoad } from '../hooks.js';
import { navigate } from '../router.js';

function requestOf(values: Record<string, string>): PostBody<'/v1/analyses'> {
  const profile = profileOf(values.profile);
  const cleanup = values.speech_cleanup === 'natural' || values.speech_cleanup === 'tight' ? values.speech_cleanup : undefined;
  return {
    source_url: values.source_url ?? '',
    analysis_start_seconds: Number(values.analysis_start_seconds),
    analysis_end_seconds: Number(values.analysis_end_seconds),
    use_proof_allowance: values.use_proof_allowance === 'on',
    ...(values.what_to_find ? { what_to_find: values.what_to_find } : {}),
    ...(profile ? { profile } : {}),
    ...(cleanup ? { speech_cleanup: cleanup } : {}),
    ...(values.max_moments ? { max_moments: numberOr(values.max_moments) } : {}),
  };
}

export function AnalysesPage() {
  const analyses = useList((cursor) => ok(v1.GET('/v1/analyses', { params: { query: { kind: 'one_off', limit: '20', ...(cursor ? { cursor } : {}) } } })));
  const [form, setForm] = useState<HTMLFormElement | null>(null);
  const values = () => (form ? formValues(form) : {});
  const preflight = useAction(() => ok(v1.POST('/v1/sources/preflight', { body: { source_url: values().source_url ?? '' } })));
  const quote = useAction(() => ok(v1.POST('/v1/analyses/quote', { body: requestOf(values()) })));
  const submit = useAction(async () => {
    const analysis = await ok(v1.POST('/v1/analyses', { body: requestOf(values()) }));
    navigate(`/analyses/${analysis.analysis_id}`);
  });
  const [found, setFound] = useState<Awaited<ReturnType<typeof preflight.run>>>();
  const [quoted, setQuoted] = useState<Awaited<ReturnType<typeof quote.run>>>();
  return (
    <>
      <section aria-labelledby="new-analysis">
        <h2 id="new-analysis">Analyse a video URL</h2>
        <form
          class="stack"
          ref={setForm}
          onSubmit={(event) => {
            event.preventDefault();
            void submit.run();
          }}
        >
          <label>
            Source URL <input name="source_url" type="url" required placeholder="https://…" />
          </label>
          <button type="button" onClick={() => void preflight.run().then(setFound)} disabled={preflight.busy}>
            Preflight
          </button>
          <ErrorBox error={preflight.error} />
          {found && (
            <p role="status">
              {'name' in found.provider ? found.provider.name : found.provider.host}: {found.title ?? found.host}, {clock(found.duration_ms)} · up to{' '}
              {found.max_window_seconds} s can be analysed now{found.proof_available ? ' · the proof allowance is available' : ''}
            </p>
          )}
          <label>
            From second <input name="analysis_start_seconds" type="number" min={0} step="any" required defaultValue="0" />
          </label>
          <label>
            To second{' '}
            <input
              name="analysis_end_seconds"
              type="number"
              min={1}
              step="any"
              required
              defaultValue={found ? String(Math.min(found.max_window_seconds, found.duration_ms / 1000)) : '60'}
            />
          </label>
          <label>
            What to find (optional) <input name="what_to_find" />
          </label>
          <Choice label="Profile" name="profile" options={profiles} none="none" />
          <Choice label="Speech cleanup" name="speech_cleanup" options={['natural', 'tight']} none="default" />
          <label>
            Max moments (optional) <input name="max_moments" type="number" min={1} />
          </label>
          <label class="check">
            <input name="use_proof_allowance" type="checkbox" /> Use the proof allowance
          </label>
          <div class="inline">
            <button type="button" onClick={() => void quote.run().then(setQuoted)} disabled={quote.busy}>
              Quote
            </button>
            <button type="submit" disabled={submit.busy}>
              Submit analysis
            </button>
          </div>
          <ErrorBox error={quote.error ?? submit.error} />
          {quoted && (
            <p role="status">
              {quoted.billed_seconds} s billed: {quoted.credits} credit(s) of {quoted.balance_credits} · {quoted.affordable ? 'affordable' : 'not affordable'}
              {quoted.proof.applies ? ' · paid by the proof allowance' : ''}
            </p>
          )}
        </form>
      </section>
      <section aria-labelledby="analysis-list">
        <h2 id="analysis-list">One-off analyses</h2>
        <Table head={['Analysis', 'Source', 'Status', 'Credits', 'Created']}>
          {analyses.items.map((a) => (
            <tr key={a.analysis_id}>
              <td>
                <Link to={`/analyses/${a.analysis_id}`}>{a.analysis_id}</Link>
              </td>
              <td>{a.source?.kind === 'url' ? (a.source.title ?? a.source.host) : (a.source?.upload_id ?? '—')}</td>
              <td>
                <Status value={a.status} />
              </td>
              <td class="number">
                {a.billing.credits}
                {a.billing.proof ? ' (proof)' : ''}
              </td>
              <td>{when(a.created_at)}</td>
            </tr>
          ))}
        </Table>
        <ListFooter list={analyses} empty="No one-off analyses yet." />
      </section>
    </>
  );
}

/** Moments as timeline bars: height is the score relative to the best one. */
export function momentBars(moments: readonly Moment[]) {
  const best = Math.max(1e-9, ...moments.map((m) => m.score));
  return moments.map((m) => ({ id: m.id, lane: m.event_type, startMs: m.start_ms, endMs: m.end_ms, height: m.score / best, label: m.title }));
}

export function AnalysisPage({ analysisId }: { analysisId: string }) {
  const path = { analysis_id: analysisId };
  const analysis = useLoad(() => ok(v1.GET('/v1/analyses/{analysis_id}', { params: { path } })), [analysisId], {
    everyMs: 2000,
    done: (a) => terminal.has(a.status),
  });
  const status = analysis.data?.status;
  const moments = useLoad(
    () => (status === 'completed' ? ok(v1.GET('/v1/analyses/{analysis_id}/moments', { params: { path } })).then((m) => m.moments) : Promise.resolve([])),
    [analysisId, status],
  );
  const cancel = useAction(async () => {
    await ok(v1.POST('/v1/analyses/{analysis_id}/cancel', { params: { path } }));
    analysis.reload();
  });
  const a = analysis.data;
  const list = moments.data ?? [];
  return (
    <>
      <p>
        <Link to="/analyses">All analyses</Link>
      </p>
      <ErrorBox error={analysis.error} />
      <Loading when={analysis.loading} />
      {a && (
        <>
          <h2>{a.source?.kind === 'url' ? (a.source.title ?? a.source.host) : a.analysis_id}</h2>
          <p>
            <Status value={a.status} /> · <code>{a.analysis_id}</code> · {a.billing.credits} credit(s) {a.billing.state}
            {a.billing.proof ? ' (proof allowance)' : ''}
            {a.window && ` · ${a.window.analysis_start_seconds}-${a.window.analysis_end_seconds} s`}
          </p>
          {a.error && <ErrorBox error={new Error(`${a.error.message} (${a.error.code})`)} />}
          {!terminal.has(a.status) && (
            <>
              <Progress analysisId={a.analysis_id} />
              <button type="button" class="danger" onClick={() => void cancel.run()} disabled={cancel.busy}>
                Cancel analysis
              </button>
              <ErrorBox error={cancel.error} />
            </>
          )}
          <ErrorBox error={moments.error} />
          {a.status === 'completed' && (
            <>
              <Player
                kind="video"
                media={undefined}
                durationMs={a.source?.duration_ms ?? Math.max(1, ...list.map((m) => m.end_ms))}
                title={`Moments of ${a.analysis_id}`}
                items={momentBars(list)}
                detail={(id) => {
                  const m = list.find((x) => x.id === id);
                  return m && <p>{`${m.title} · ${clock(m.start_ms)}-${clock(m.end_ms)} · score ${m.score.toFixed(2)} · “${m.transcript_excerpt}”`}</p>;
                }}
              />
              <h3>Moments, best first</h3>
              <ol>
                {list.map((m) => (
                  <li key={m.id}>
                    <strong>{m.title}</strong> ({m.event_type}) {clock(m.start_ms)}-{clock(m.end_ms)} · score {m.score.toFixed(2)}
                  </li>
                ))}
              </ol>
              {list.length > 0 && <Link to={`/renders?analysis=${a.analysis_id}`}>Render moments of this analysis</Link>}
            </>
          )}
        </>
      )}
    </>
  );
}
