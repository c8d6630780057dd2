/** Scanners: create and edit per type (labels for classifiers, fields for extractors), versions and a diff of any two. */
import { useState } from 'preact/hooks';
import { allPages, ok, profileOf, profiles, type Scanner, v1 } from '../api.js';
import { Choice, ErrorBox, formValues, Link, ListFooter, listOf, Loading, numberOr, Table, when } from '../components/ui.js';
import { useAction, useList, useLoad } from '../hooks.js';
import { navigate } from '../router.js';

type ScannerType = Scanner['type'];
const types: ScannerType[] = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'];

/** The create/update body the form describes: only what applies to its type. */
function definitionOf(values: Record<string, string>) {
  const type = values.type as ScannerType;
  const profile = profileOf(values.profile);
  return {
    name: values.name ?? '',
    instructions: values.instructions ?? '',
    type,
    ...(profile ? { profile } : {}),
    ...(values.max_observations ? { max_observations: Number(values.max_observations) } : {}),
    ...(type === 'find_moments' ? { min_seconds: numberOr(values.min_seconds), max_seconds: numberOr(values.max_seconds) } : {}),
    ...(type === 'classifier' ? { output: { labels: listOf(values.labels) } } : {}),
    ...(type === 'extractor' ? { output: { fields: listOf(values.fields) } } : {}),
  };
}

function ScannerForm({
  scanner,
  submitLabel,
  onSubmit,
  busy,
}: {
  scanner?: Scanner;
  submitLabel: string;
  onSubmit: (values: Record<string, string>) => void;
  busy: boolean;
}) {
  const [type, setType] = useState<ScannerType>(scanner?.type ?? 'find_moments');
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(formValues(event.currentTarget));
      }}
    >
      <label>
        Name <input name="name" required defaultValue={scanner?.name} />
      </label>
      <label>
        Instructions <textarea name="instructions" required rows={3} defaultValue={scanner?.instructions} />
      </label>
      <label>
        Type{' '}
        <select name="type" value={type} onChange={(event) => setType(event.currentTarget.value as ScannerType)}>
          {types.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <Choice label="Profile" name="profile" options={profiles} none="none" value={scanner?.profile ?? ''} />
      <label>
        Max observations (empty: the account's cap) <input name="max_observations" type="number" min={1} defaultValue={scanner?.max_observations?.toString()} />
      </label>
      {type === 'find_moments' && (
        <>
          <label>
            Min seconds <input name="min_seconds" type="number" min={5} max={600} defaultValue={scanner?.min_seconds?.toString()} />
          </label>
          <label>
            Max seconds <input name="max_seconds" type="number" min={5} max={600} defaultValue={scanner?.max_seconds?.toString()} />
          </label>
        </>
      )}
      {type === 'classifier' && (
        <label>
          Labels (2-50, one a line or comma separated; <code>other</code> is reserved)
          <textarea name="labels" rows={4} required defaultValue={scanner?.output?.labels?.join('\n')} />
        </label>
      )}
      {type === 'extractor' && (
        <label>
          Fields (1-20 snake_case names, one a line or comma separated)
          <textarea name="fields" rows={4} required defaultValue={scanner?.output?.fields?.join('\n')} />
        </label>
      )}
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}

export function ScannersPage() {
  const scanners = useList((cursor) => ok(v1.GET('/v1/scanners', { params: { query: { limit: '20', ...(cursor ? { cursor } : {}) } } })));
  const create = useAction(async (values: Record<string, string>) => {
    const scanner = await ok(v1.POST('/v1/scanners', { body: definitionOf(values) }));
    navigate(`/scanners/${scanner.scanner_id}`);
  });
  return (
    <>
      <section aria-labelledby="scanner-list">
        <h2 id="scanner-list">Scanners</h2>
        <Table head={['Name', 'Type', 'Version', 'Updated']}>
          {scanners.items.map((s) => (
            <tr key={s.scanner_id}>
              <td>
                <Link to={`/scanners/${s.scanner_id}`}>{s.name}</Link>
              </td>
              <td>{s.type}</td>
              <td class="number">{s.version}</td>
              <td>{when(s.updated_at)}</td>
            </tr>
          ))}
        </Table>
        <ListFooter list={scanners} empty="No scanners yet." />
      </section>
      <section aria-labelledby="new-scanner">
        <h2 id="new-scanner">New scanner</h2>
        <ScannerForm submitLabel="Create scanner" busy={create.busy} onSubmit={(values) => void create.run(values)} />
        <ErrorBox error={create.error} />
      </section>
    </>
  );
}

const compared = ['name', 'instructions', 'type', 'profile', 'max_observations', 'min_seconds', 'max_seconds', 'output', 'metadata'] as const;
const shown = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

export function ScannerPage({ scannerId }: { scannerId: string }) {
  const path = { scanner_id: scannerId };
  const scanner = useLoad(() => ok(v1.GET('/v1/scanners/{scanner_id}', { params: { path } })), [scannerId]);
  const versions = useLoad(
    () => allPages((cursor) => ok(v1.GET('/v1/scanners/{scanner_id}/versions', { params: { path, query: cursor ? { cursor } : {} } }))),
    [scannerId, scanner.data?.version],
  );
  const [pair, setPair] = useState<[number, number]>();
  const update = useAction(async (values: Record<string, string>) => {
    const definition = definitionOf(values);
    // A PATCH names what changes; clearing what no longer applies to the type keeps the version valid.
    await ok(
      v1.PATCH('/v1/scanners/{scanner_id}', {
        params: { path },
        body: {
          ...definition,
          profile: definition.profile ?? null,
          max_observations: definition.max_observations ?? null,
          min_seconds: definition.min_seconds ?? null,
          max_seconds: definition.max_seconds ?? null,
          output: definition.output ?? null,
        },
      }),
    );
    scanner.reload();
  });
  const list = [...(versions.data ?? [])].sort((a, b) => b.version - a.version);
  const [left, right] = pair ?? [list[1]?.version ?? 1, list[0]?.version ?? 1];
  const a = list.find((v) => v.version === left);
  const b = list.find((v) => v.version === right);
  return (
    <>
      <ErrorBox error={scanner.error} />
      <Loading when={scanner.loading} />
      {scanner.data && (
        <section aria-labelledby="edit-scanner">
          <h2 id="edit-scanner">
            {scanner.data.name} <span class="muted">version {scanner.data.version}</span>
          </h2>
          <p>
            <code>{scanner.data.scanner_id}</code> · <Link to={`/runs?scanner=${scanner.data.scanner_id}`}>Start a run with it</Link>
          </p>
          <ScannerForm
            key={scanner.data.version}
            scanner={scanner.data}
            submitLabel="Save as a new version"
            busy={update.busy}
            onSubmit={(v) => void update.run(v)}
          />
          <ErrorBox error={update.error} />
        </section>
      )}
      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <ErrorBox error={versions.error} />
        <ul>
          {list.map((v) => (
            <li key={v.version}>
              Version {v.version} · {when(v.updated_at)}
            </li>
          ))}
        </ul>
        {list.length > 1 && (
          <>
            <div class="inline">
              <Choice label="Compare version" options={list.map((v) => v.version)} value={left} onChange={(v) => setPair([Number(v), right])} />
              <Choice label="with version" options={list.map((v) => v.version)} value={right} onChange={(v) => setPair([left, Number(v)])} />
            </div>
            {a && b && (
              <table class="diff">
                <caption>
                  Version {a.version} against version {b.version}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Version {a.version}</th>
                    <th scope="col">Version {b.version}</th>
                  </tr>
                </thead>
                <tbody>
                  {compared.map((field) => {
                    const changed = shown(a[field]) !== shown(b[field]);
                    return (
                      <tr key={field} class={changed ? 'changed' : undefined}>
                        <th scope="row">
                          {field}
                          {changed && <span class="visually-hidden"> (changed)</span>}
                        </th>
                        <td>{shown(a[field])}</td>
                        <td>{shown(b[field])}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
          </>
        )}
      </section>
    </>
  );
}
