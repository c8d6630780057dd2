/** Live progress of an analysis (a run's or a one-off's), polled until it ends. */
import { ok, v1 } from '../api.js';
import { ErrorBox } from '../components/ui.js';
import { useLoad } from '../hooks.js';

/** Statuses after which nothing changes. */
export const terminal = new Set<string>(['completed', 'failed', 'canceled']);

export function Progress({ analysisId }: { analysisId: string }) {
  const progress = useLoad(() => ok(v1.GET('/v1/analyses/{analysis_id}/progress', { params: { path: { analysis_id: analysisId } } })), [analysisId], {
    everyMs: 2000,
    done: (p) => terminal.has(p.status),
  });
  const p = progress.data;
  return (
    <>
      <ErrorBox error={progress.error} />
      {p && (
        <p>
          <label>
            Progress <progress max={1} value={p.fraction} /> {Math.round(p.fraction * 100)}%
          </label>{' '}
          {p.status}
          {p.queue_position !== null && ` · position ${p.queue_position} in the queue`}
          {p.chunks_total !== null && ` · ${p.chunks_done} of ${p.chunks_total} chunks`}
        </p>
      )}
    </>
  );
}
