import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` when `deps` change; `pollMs` reloads it until `done(data)`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], poll?: { everyMs: number; done: (data: T) => boolean }): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () => {
      loadRef.current().then(
        (data) => {
          if (!live) return;
          setState({ data, error: undefined, loading: false });
          if (poll && !poll.done(data)) timer = setTimeout(run, poll.everyMs);
        },
        (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
      );
    };
    run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export interface Listed<T> {
  items: T[];
  error: unknown;
  loading: boolean;
  more: (() => void) | undefined;
  reload: () => void;
}

/** A cursor-paginated list, page after page on "Load more". */
export function useList<T>(page: (cursor: string | undefined) => Promise<Page<T>>, deps: unknown[] = []): Listed<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const pageRef = useRef(page);
  pageRef.current = page;
  const fetchPage = useCallback((after: string | undefined, replace: boolean) => {
    setLoading(true);
    pageRef.current(after).then(
      (next) => {
        setItems((old) => (replace ? next.data : [...old, ...next.data]));
        setCursor(next.next_cursor);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        setError(e);
        setLoading(false);
      },
    );
  }, []);
  useEffect(() => fetchPage(undefined, true), [...deps, tick]);
  return {
    items,
    error,
    loading,
    more: cursor ? () => fetchPage(cursor, false) : undefined,
    reload: () => setTick((n) => n + 1),
  };
}

/** Runs an action, keeping its error and whether it is under way, for a form's submit button. */
export function useAction<A extends unknown[], R>(
  action: (...args: A) => Promise<R>,
): { run: (...args: A) => Promise<R | undefined>; busy: boolean; error: unknown } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}
