/**
 * Scanner batches: submit a CSV in the CLI's format (client_id,scanner_id,upload_id[,metadata_json]),
 * checked by the CLI's own parser and sent with the CLI's content-hash Idempotency-Key, so the same
 * file submitted twice (console or CLI) follows the first batch. Counters, items, cancel.
 */
import { useState } from 'preact/hooks';
import { batchIdempotencyKey, batchItemsFromCsv, type BatchItemInput } from '../../../packages/cli/src/batch-csv.js';
import { ok, v1 } from '../api.js';
import { ErrorBox, Link, ListFooter, Loading, Status, Table, when } from '../components/ui.js';
import { useAction, useList, useLoad } from '../hooks.js';
import { navigate } from '../router.js';

const ended = new Set(['completed', 'partial', 'failed', 'canceled']);
const counterNames = ['total', 'queued', 'processing', 'completed', 'failed', 'canceled'] as const;

export function BatchesPage() {
  const batches = useList((cursor) => ok(v1.GET('/v1/scanner-batches', { params: { query: { limit: '20', ...(cursor ? { cursor } : {}) } } })));
  const [file, setFile] = useState<{ name: string; bytes: Uint8Array<ArrayBuffer>; items: BatchItemInput[] }>();
  const read = useAction(async (chosen: File) => {
    setFile(undefined);
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    setFile({ name: chosen.name, bytes, items: batchItemsFromCsv(new TextDecoder().decode(bytes), chosen.name) });
  });
  const submit = useAction(async () => {
    if (!file) return;
    const key = await batchIdempotencyKey(file.bytes);
    const batch = await ok(v1.POST('/v1/scanner-batches', { params: { header: { 'Idempotency-Key': key } }, body: { items: file.items } }));
    navigate(`/batches/${batch.batch_id}`);
  });
  return (
    <>
      <section aria-labelledby="new-batch">
        <h2 id="new-batch">Submit a batch</h2>
        <p>
          A CSV with the header <code>client_id,scanner_id,upload_id</code> and optionally <code>,metadata_json</code>; 1 to 100 items (the CLI's{' '}
          <code>media-scanner batch</code> format).
        </p>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            void submit.run();
          }}
        >
          <label>
            CSV file <input type="file" accept=".csv,text/csv" onChange={(e) => e.currentTarget.files?.[0] && void read.run(e.currentTarget.files[0])} />
          </label>
          <button type="submit" disabled={!file || submit.busy}>
            Submit {file ? `${file.items.length} item(s)` : 'batch'}
          </button>
        </form>
        <ErrorBox error={read.error ?? submit.error} />
        {file && (
          <table>
            <caption>{file.name}</caption>
            <thead>
              <tr>
                <th scope="col">client_id</th>
                <th scope="col">scanner_id</th>
                <th scope="col">upload_id</th>
                <th scope="col">metadata</th>
              </tr>
            </thead>
            <tbody>
              {file.items.map((item) => (
                <tr key={item.client_id}>
                  <td>{item.client_id}</td>
                  <td>{item.scanner_id}</td>
                  <td>{item.upload_id}</td>
                  <td>{item.metadata ? JSON.stringify(item.metadata) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="batch-list">
        <h2 id="batch-list">Batches</h2>
        <Table head={['Batch', 'Status', 'Done', 'Created']}>
          {batches.items.map((b) => (
            <tr key={b.batch_id}>
              <td>
                <Link to={`/batches/${b.batch_id}`}>{b.batch_id}</Link>
              </td>
              <td>
                <Status value={b.status} />
              </td>
              <td class="number">
                {b.counters.completed + b.counters.failed + b.counters.canceled} / {b.counters.total}
              </td>
              <td>{when(b.created_at)}</td>
            </tr>
          ))}
        </Table>
        <ListFooter list={batches} empty="No batches yet." />
      </section>
    </>
  );
}

export function BatchPage({ batchId }: { batchId: string }) {
  const [itemCursor, setItemCursor] = useState<number>();
  const batch = useLoad(
    () =>
      ok(v1.GET('/v1/scanner-batches/{batch_id}', { params: { path: { batch_id: batchId }, query: itemCursor ? { item_cursor: String(itemCursor) } : {} } })),
    [batchId, itemCursor],
    { everyMs: 3000, done: (b) => ended.has(b.status) },
  );
  const cancel = useAction(async () => {
    if (!confirm('Cancel the batch? Items not yet started are canceled; running ones finish.')) return;
    await ok(v1.POST('/v1/scanner-batches/{batch_id}/cancel', { params: { path: { batch_id: batchId } } }));
    batch.reload();
  });
  const b = batch.data;
  return (
    <>
      <p>
        <Link to="/batches">All batches</Link>
      </p>
      <ErrorBox error={batch.error} />
      <Loading when={batch.loading} />
      {b && (
        <>
          <h2>
            <code>{b.batch_id}</code> <Status value={b.status} />
          </h2>
          <dl class="facts counters">
            {counterNames.map((name) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{b.counters[name]}</dd>
              </div>
            ))}
          </dl>
          {!ended.has(b.status) && b.status !== 'canceling' && (
            <button type="button" class="danger" onClick={() => void cancel.run()} disabled={cancel.busy}>
              Cancel batch
            </button>
          )}
          <ErrorBox error={cancel.error} />
          <Table head={['client_id', 'Status', 'Scanner', 'Upload', 'Run']} caption="Items">
            {b.items.map((item) => (
              <tr key={item.client_id}>
                <td>{item.client_id}</td>
                <td>
                  <Status value={item.status} />
                  {item.error && <div class="muted">{`${item.error.message} (${item.error.code})`}</div>}
                </td>
                <td>
                  {item.scanner_id} v{item.scanner_version}
                </td>
                <td>{item.upload_id}</td>
                <td>{item.run_id ? <Link to={`/runs/${item.run_id}`}>{item.run_id}</Link> : '—'}</td>
              </tr>
            ))}
          </Table>
          <div class="inline">
            {itemCursor !== undefined && (
              <button type="button" onClick={() => setItemCursor(undefined)}>
                First items
              </button>
            )}
            {b.items_next_cursor !== null && (
              <button type="button" onClick={() => setItemCursor(b.items_next_cursor ?? undefined)}>
                Next items
              </button>
            )}
          </div>
        </>
      )}
    </>
  );
}
