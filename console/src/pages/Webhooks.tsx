/** Webhooks: endpoints (secret shown once, rotate, enable, delete), a test event, the deliveries log with attempts and retry. */
import { useState } from 'preact/hooks';
import { ok, v1, type WebhookDelivery, type WebhookEndpoint } from '../api.js';
import { ErrorBox, formValues, ListFooter, ShownOnce, Status, Table, when } from '../components/ui.js';
import { useAction, useList } from '../hooks.js';

type EventType = WebhookEndpoint['events'][number];
/** Every type an endpoint can subscribe to (the build fails if the API adds one and this list misses it). */
const eventTypes = [
  'analysis.completed',
  'analysis.failed',
  'analysis.canceled',
  'run.completed',
  'run.failed',
  'render.completed',
  'render.failed',
  'upload.ready',
  'upload.failed',
  'scanner_batch.completed',
] as const satisfies readonly EventType[];
const _everyEventListed: Exclude<EventType, (typeof eventTypes)[number]> extends never ? true : never = true;

export function WebhooksPage() {
  const endpoints = useList((cursor) => ok(v1.GET('/v1/webhook-endpoints', { params: { query: cursor ? { cursor } : {} } })));
  const [endpointFilter, setEndpointFilter] = useState('');
  const deliveries = useList(
    (cursor) =>
      ok(
        v1.GET('/v1/webhook-deliveries', {
          params: { query: { limit: '20', ...(cursor ? { cursor } : {}), ...(endpointFilter ? { endpoint_id: endpointFilter } : {}) } },
        }),
      ),
    [endpointFilter],
  );
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const [notice, setNotice] = useState<string>();
  const create = useAction(async (form: HTMLFormElement) => {
    const values = formValues(form);
    const events = new FormData(form).getAll('events').map(String) as EventType[];
    const created = await ok(
      v1.POST('/v1/webhook-endpoints', { body: { url: values.url ?? '', events, ...(values.description ? { description: values.description } : {}) } }),
    );
    setSecret({ label: `The signing secret of ${created.url}`, value: created.secret });
    form.reset();
    endpoints.reload();
  });
  const act = useAction(async (what: 'rotate' | 'test' | 'toggle' | 'delete', endpoint: WebhookEndpoint) => {
    const path = { endpoint_id: endpoint.endpoint_id };
    if (what === 'rotate') {
      if (!confirm(`Rotate the secret of ${endpoint.url}? The old one stops verifying at once.`)) return;
      const rotated = await ok(v1.POST('/v1/webhook-endpoints/{endpoint_id}/rotate-secret', { params: { path } }));
      setSecret({ label: `The new signing secret of ${rotated.url}`, value: rotated.secret });
    } else if (what === 'test') {
      const test = await ok(v1.POST('/v1/webhook-endpoints/{endpoint_id}/test', { params: { path } }));
      setNotice(`Test event ${test.event_id} sent to ${endpoint.url}: its delivery is in the log below.`);
      deliveries.reload();
    } else if (what === 'toggle') {
      await ok(v1.PATCH('/v1/webhook-endpoints/{endpoint_id}', { params: { path }, body: { enabled: !endpoint.enabled } }));
    } else {
      if (!confirm(`Delete the endpoint ${endpoint.url}? Nothing is delivered to it any more.`)) return;
      await ok(v1.DELETE('/v1/webhook-endpoints/{endpoint_id}', { params: { path } }));
    }
    endpoints.reload();
  });
  const retry = useAction(async (delivery: WebhookDelivery) => {
    await ok(v1.POST('/v1/webhook-deliveries/{delivery_id}/retry', { params: { path: { delivery_id: delivery.delivery_id } } }));
    deliveries.reload();
  });
  return (
    <>
      <section aria-labelledby="new-endpoint">
        <h2 id="new-endpoint">New endpoint</h2>
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run(event.currentTarget);
          }}
        >
          <label>
            URL (HTTPS, public) <input name="url" type="url" required placeholder="https://example.com/hooks/media-scanner" />
          </label>
          <label>
            Description (optional) <input name="description" />
          </label>
          <fieldset>
            <legend>Events</legend>
            <div class="checks">
              {eventTypes.map((type) => (
                <label class="check" key={type}>
                  <input type="checkbox" name="events" value={type} defaultChecked={type.endsWith('.completed')} /> {type}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" disabled={create.busy}>
            Create endpoint
          </button>
        </form>
        <ErrorBox error={create.error} />
      </section>
      {secret && <ShownOnce label={secret.label} value={secret.value} />}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <section aria-labelledby="endpoint-list">
        <h2 id="endpoint-list">Endpoints</h2>
        <ErrorBox error={act.error} />
        <Table head={['URL', 'Events', 'State', 'Actions']}>
          {endpoints.items.map((e) => (
            <tr key={e.endpoint_id}>
              <td>
                {e.url}
                {e.description && <div class="muted">{e.description}</div>}
              </td>
              <td>{e.events.join(', ')}</td>
              <td>{e.enabled ? 'enabled' : 'disabled'}</td>
              <td class="actions">
                <button type="button" onClick={() => void act.run('test', e)} disabled={act.busy} aria-label={`Send a test event to ${e.url}`}>
                  Send test
                </button>
                <button type="button" onClick={() => void act.run('rotate', e)} disabled={act.busy} aria-label={`Rotate the secret of ${e.url}`}>
                  Rotate secret
                </button>
                <button type="button" onClick={() => void act.run('toggle', e)} disabled={act.busy} aria-label={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`}>
                  {e.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" class="danger" onClick={() => void act.run('delete', e)} disabled={act.busy} aria-label={`Delete ${e.url}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
        <ListFooter list={endpoints} empty="No endpoints yet." />
      </section>
      <section aria-labelledby="delivery-log">
        <h2 id="delivery-log">Deliveries</h2>
        <div class="inline">
          <label>
            Endpoint{' '}
            <select value={endpointFilter} onChange={(e) => setEndpointFilter(e.currentTarget.value)}>
              <option value="">all</option>
              {endpoints.items.map((e) => (
                <option key={e.endpoint_id} value={e.endpoint_id}>
                  {e.url}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={deliveries.reload}>
            Refresh
          </button>
        </div>
        <ErrorBox error={retry.error} />
        <Table head={['Event', 'Status', 'Attempts', 'Next attempt', 'Created', 'Retry']}>
          {deliveries.items.map((d) => (
            <tr key={d.delivery_id}>
              <td>
                {d.event_type}
                <div class="muted">
                  <code>{d.event_id}</code>
                </div>
              </td>
              <td>
                <Status value={d.status} />
              </td>
              <td>
                <ol class="attempts">
                  {d.attempts.map((a) => (
                    <li key={a.at}>
                      {when(a.at)}: {a.status_code ?? a.error ?? 'no answer'} in {a.duration_ms} ms
                      {a.response_body ? <div class="muted">{a.response_body.slice(0, 200)}</div> : null}
                    </li>
                  ))}
                </ol>
              </td>
              <td>{when(d.next_attempt_at)}</td>
              <td>{when(d.created_at)}</td>
              <td>
                {d.status === 'failed' && (
                  <button type="button" onClick={() => void retry.run(d)} disabled={retry.busy} aria-label={`Retry delivery ${d.delivery_id}`}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
        <ListFooter list={deliveries} empty="No deliveries yet." />
      </section>
    </>
  );
}
