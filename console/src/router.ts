/** History routing under /console/ (no hash): the current path as state, links that push it. */
import { useEffect, useState } from 'preact/hooks';

export const base = '/console';
const listeners = new Set<() => void>();

/** The path below /console/, e.g. `/runs/run_x`; `/` for the console's root. */
export const currentPath = (): string => location.pathname.slice(base.length) || '/';

export function navigate(path: string): void {
  history.pushState(null, '', `${base}${path}`);
  for (const listener of listeners) listener();
}

export function usePath(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((n) => n + 1);
    listeners.add(changed);
    addEventListener('popstate', changed);
    return () => {
      listeners.delete(changed);
      removeEventListener('popstate', changed);
    };
  }, []);
  return { path: currentPath(), query: new URLSearchParams(location.search) };
}

/** An in-console link: a real href (open in a new tab works), client-side navigation on a plain click. */
export function linkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(`${anchor.pathname.slice(base.length)}${anchor.search}`);
}
