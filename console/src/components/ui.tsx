/** Small shared pieces: links, errors, copy, dates, sizes, "load more". */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import type { Listed } from '../hooks.js';
import { base, linkClick } from '../router.js';

export function Link({ to, children, current }: { to: string; children: ComponentChildren; current?: boolean }) {
  return (
    <a href={`${base}${to}`} onClick={linkClick} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

/** An error as the user should read it: the API's message, its code, the field at fault and the request id to quote. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  if (error instanceof ApiError)
    return (
      <div class="error" role="alert">
        <strong>{error.message}</strong>
        <div class="muted">
          {error.code}
          {error.param ? ` · field ${error.param}` : ''}
          {error.requestId ? ` · request ${error.requestId}` : ''}
        </div>
      </div>
    );
  return (
    <div class="error" role="alert">
      <strong>{error instanceof Error ? error.message : `Unexpected error: ${JSON.stringify(error)}`}</strong>
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : label}
      <span class="visually-hidden" aria-live="polite">
        {copied ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A secret the server shows once (an API key, a webhook signing secret). */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="notice" role="status">
      <p>
        <strong>{label}</strong> is shown only now: copy it and store it safely.
      </p>
      <p class="secret">
        <code>{value}</code> <CopyButton text={value} />
      </p>
    </div>
  );
}

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

/** `m:ss.s` of milliseconds. */
export function clock(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const seconds = ms / 1000;
  return `${Math.floor(seconds / 60)}:${(seconds % 60).toFixed(1).padStart(4, '0')}`;
}

export const Status = ({ value }: { value: string }) => <span class={`status status-${value}`}>{value}</span>;

export function Loading({ when: loading }: { when: boolean }) {
  return loading ? <p aria-live="polite">Loading…</p> : null;
}

/** The state of a list: its error, "loading", "nothing yet", and the next page button. */
export function ListFooter<T>({ list, empty }: { list: Listed<T>; empty: string }) {
  return (
    <>
      <ErrorBox error={list.error} />
      <Loading when={list.loading} />
      {!list.loading && !list.error && list.items.length === 0 && <p class="muted">{empty}</p>}
      {list.more && (
        <button type="button" onClick={list.more} disabled={list.loading}>
          Load more
        </button>
      )}
    </>
  );
}

/** Form values by field name. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') values[name] = value.trim();
  return values;
}

/** A number field's value, or undefined when left empty. */
export const numberOr = (text: string | undefined): number | undefined => (text ? Number(text) : undefined);

/** Lines or commas of a text area, trimmed, blanks dropped. */
export const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A data table: column headers, optional caption, rows as children. */
export function Table({ head, caption, children }: { head: string[]; caption?: string; children: ComponentChildren }) {
  return (
    <table>
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          {head.map((name) => (
            <th scope="col" key={name}>
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/**
 * A labelled select of plain options; `none` adds an empty first choice with that text. With
 * `onChange` it is controlled; without, `value` is only the initially selected option (a form reads it).
 */
export function Choice({
  label,
  name,
  options,
  none,
  value,
  onChange,
}: {
  label: string;
  name?: string;
  options: readonly (string | number)[];
  none?: string;
  value?: string | number;
  onChange?: (value: string) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select name={name} value={onChange ? value : undefined} onChange={onChange && ((event) => onChange(event.currentTarget.value))}>
        {none !== undefined && <option value="">{none}</option>}
        {options.map((option) => (
          <option key={option} selected={onChange ? undefined : String(option) === String(value)}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
