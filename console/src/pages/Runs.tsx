/**
 * Runs: start one on a ready upload; a run's live status and progress (polled), and its observations
 * on the Timeline beside a player of the private source (a 5-minute signed URL). Selecting a bar
 * seeks the player and shows its evidence.
 */
import { allPages, type Observation, ok, request, type SignedMedia, v1 } from '../api.js';
import { laneOf } from '../../../packages/cli/src/timeline.js';
import { Player } from '../components/Player.js';
import type { TimelineItem } from '../components/Timeline.js';
import { clock, ErrorBox, formValues, Link, ListFooter, Loading, numberOr, Status, Table, when } from '../components/ui.js';
import { useAction, useList, useLoad } from '../hooks.js';
import { navigate, usePath } from '../router.js';
import { Progress, terminal } from '../components/Progress.js';

export function RunsPage() {
  const { query } = usePath();
  const scanners = useLoad(() => allPages((cursor) => ok(v1.GET('/v1/scanners', { params: { query: cursor ? { cursor } : {} } }))), []);
  const uploads = useLoad(() => ok(v1.GET('/v1/uploads', { params: { query: { status: 'ready', limit: '100' } } })), []);
  const runs = useList((cursor) => ok(v1.GET('/v1/analyses', { params: { query: { kind: 'scanner_run', limit: '20', ...(cursor ? { cursor } : {}) } } })));
  const start = useAction(async (values: Record<string, string>) => {
    const run = await ok(
      v1.POST('/v1/scanners/{scanner_id}/runs', {
        params: { path: { scanner_id: values.scanner_id ?? '' } },
        body: {
          upload_id: values.upload_id ?? '',
          analysis_start_seconds: numberOr(values.analysis_start_seconds),
          analysis_end_seconds: numberOr(values.analysis_end_seconds),
        },
      }),
    );
    navigate(`/runs/${run.run_id}`);
  });
  return (
    <>
      <section aria-labelledby="new-run">
        <h2 id="new-run">Start a run</h2>
        <ErrorBox error={scanners.error ?? uploads.error} />
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void start.run(formValues(event.currentTarget));
          }}
        >
          <label>
            Scanner{' '}
            <select name="scanner_id" required>
              {(scanners.data ?? []).map((s) => (
                <option key={s.scanner_id} value={s.scanner_id} selected={s.scanner_id === query.get('scanner')}>
                  {s.name} ({s.type}, v{s.version})
                </option>
              ))}
            </select>
          </label>
          <label>
            Upload{' '}
            <select name="upload_id" required>
              {(uploads.data?.data ?? []).map((u) => (
                <option key={u.upload_id} value={u.upload_id} selected={u.upload_id === query.get('upload')}>
                  {u.filename} ({u.media_kind}, {clock(u.duration_ms)})
                </option>
              ))}
            </select>
          </label>
          <label>
            From second (optional) <input name="analysis_start_seconds" type="number" min={0} step="any" />
          </label>
          <label>
            To second (optional) <input name="analysis_end_seconds" type="number" min={0} step="any" />
          </label>
          <button type="submit" disabled={start.busy || !scanners.data?.length || !uploads.data?.data.length}>
            Start run
          </button>
        </form>
        <ErrorBox error={start.error} />
      </section>
      <section aria-labelledby="run-list">
        <h2 id="run-list">Runs</h2>
        <Table head={['Run', 'Status', 'Credits', 'Created']}>
          {runs.items.map((a) => (
            <tr key={a.analysis_id}>
              <td>{a.run_id ? <Link to={`/runs/${a.run_id}`}>{a.run_id}</Link> : a.analysis_id}</td>
              <td>
                <Status value={a.status} />
              </td>
              <td class="number">{a.billing.credits}</td>
              <td>{when(a.created_at)}</td>
            </tr>
          ))}
        </Table>
        <ListFooter list={runs} empty="No runs yet." />
      </section>
    </>
  );
}

/** An observation as a timeline bar: lane and height as the CLI's timeline draws them. */
const barOf = (o: Observation): TimelineItem => ({
  id: o.observation_id,
  lane: laneOf(o),
  startMs: o.evidence.start_ms,
  endMs: o.evidence.end_ms,
  height: o.relevance_score,
  label: o.title,
});

export function RunPage({ runId }: { runId: string }) {
  const run = useLoad(() => ok(v1.GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } })), [runId], {
    everyMs: 2000,
    done: (r) => terminal.has(r.status),
  });
  const status = run.data?.status;
  const observations = useLoad(
    () =>
      status === 'completed'
        ? allPages((cursor) =>
            ok(v1.GET('/v1/runs/{run_id}/observations', { params: { path: { run_id: runId }, query: { limit: '100', ...(cursor ? { cursor } : {}) } } })),
          )
        : Promise.resolve([]),
    [runId, status],
  );
  const uploadId = run.data?.upload_id;
  const media = useLoad(
    () => (uploadId ? request<SignedMedia>('GET', `/uploads/${encodeURIComponent(uploadId)}/media`) : Promise.resolve(undefined)),
    [uploadId],
  );
  return (
    <>
      <p>
        <Link to="/runs">All runs</Link>
      </p>
      <ErrorBox error={run.error} />
      <Loading when={run.loading} />
      {run.data && (
        <>
          <h2>
            {run.data.provenance.scanner.definition.name} on {run.data.upload_id}
          </h2>
          <p>
            <Status value={run.data.status} /> · <code>{run.data.run_id}</code> · scanner {run.data.scanner_id} v{run.data.scanner_version} ·{' '}
            {run.data.billing.credits} credit(s) {run.data.billing.state}
            {run.data.observation_count !== null && ` · ${run.data.observation_count} observation(s)`}
          </p>
          {run.data.error && <ErrorBox error={new Error(`${run.data.error.message} (${run.data.error.code})`)} />}
          {!terminal.has(run.data.status) && <Progress analysisId={run.data.analysis_id} />}
          <ErrorBox error={observations.error ?? media.error} />
          <Player
            kind={run.data.media_kind}
            media={media.data}
            durationMs={run.data.source.duration_ms}
            title={`Observations of ${run.data.run_id}`}
            items={(observations.data ?? []).map(barOf)}
            detail={(id) => <Evidence observation={(observations.data ?? []).find((o) => o.observation_id === id)} />}
          />
        </>
      )}
    </>
  );
}

function Evidence({ observation: o }: { observation: Observation | undefined }) {
  if (!o) return null;
  return (
    <dl class="facts">
      <div>
        <dt>Title</dt>
        <dd>{o.title}</dd>
      </div>
      <div>
        <dt>When</dt>
        <dd>
          {clock(o.evidence.start_ms)} to {clock(o.evidence.end_ms)} ({o.evidence.evidence_kind})
        </dd>
      </div>
      <div>
        <dt>Relevance</dt>
        <dd>{o.relevance_score.toFixed(2)}</dd>
      </div>
      <div>
        <dt>Value</dt>
        <dd>{typeof o.value === 'object' ? JSON.stringify(o.value) : String(o.value)}</dd>
      </div>
      <div>
        <dt>Summary</dt>
        <dd>{o.summary}</dd>
      </div>
      <div>
        <dt>Excerpt</dt>
        <dd>{o.evidence.transcript_excerpt ? `${o.evidence.speaker ? `${o.evidence.speaker}: ` : ''}“${o.evidence.transcript_excerpt}”` : '—'}</dd>
      </div>
      <div>
        <dt>Signals</dt>
        <dd>{o.evidence.signals.join(', ') || '—'}</dd>
      </div>
    </dl>
  );
}
