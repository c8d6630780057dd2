/** API keys: create (shown once), list, revoke. Keys are console-only: no API route creates one. */
import { useState } from 'preact/hooks';
import { type ApiKey, request } from '../api.js';
import { ErrorBox, formValues, ListFooter, ShownOnce, Table, when } from '../components/ui.js';
import { useAction, useList } from '../hooks.js';

export function KeysPage() {
  const keys = useList(() => request<{ data: ApiKey[] }>('GET', '/keys').then(({ data }) => ({ data, next_cursor: null })));
  const [created, setCreated] = useState<ApiKey & { api_key: string }>();
  const create = useAction(async (name: string) => {
    setCreated(await request<ApiKey & { api_key: string }>('POST', '/keys', { name }));
    keys.reload();
  });
  const revoke = useAction(async (key: ApiKey) => {
    if (!confirm(`Revoke the key "${key.name}" (${key.prefix}…)? Requests with it are refused from now on.`)) return;
    await request<ApiKey>('DELETE', `/keys/${encodeURIComponent(key.key_id)}`);
    keys.reload();
  });
  return (
    <>
      <section aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            const form = event.currentTarget;
            void create.run(formValues(event.currentTarget).name ?? '').then(() => form.reset());
          }}
        >
          <label>
            Name <input name="name" required maxLength={64} placeholder="e.g. production server" />
          </label>
          <button type="submit" disabled={create.busy}>
            Create key
          </button>
        </form>
        <ErrorBox error={create.error} />
        {created && <ShownOnce label={`The key "${created.name}"`} value={created.api_key} />}
      </section>
      <section aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <ErrorBox error={revoke.error} />
        <Table head={['Name', 'Prefix', 'Created', 'Last used', 'State']}>
          {keys.items.map((key) => (
            <tr key={key.key_id}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{when(key.created_at)}</td>
              <td>{key.last_used_at ? when(key.last_used_at) : 'never'}</td>
              <td>
                {key.revoked_at ? (
                  `revoked ${when(key.revoked_at)}`
                ) : (
                  <button type="button" class="danger" onClick={() => void revoke.run(key)} disabled={revoke.busy} aria-label={`Revoke ${key.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
        <ListFooter list={keys} empty="No keys yet: create one above." />
      </section>
    </>
  );
}
