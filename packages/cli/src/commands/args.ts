import type { Metadata } from '../batch-csv.js';
import { UsageError } from '../output.js';

/** `a,b,c`: the items, trimmed, empty ones dropped. */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} is a whole number, not "${value}".`);
  return Number(value);
};

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--window 30:90`: the analysis window in seconds. */
export function windowOf(value: string | undefined): { analysis_start_seconds: number; analysis_end_seconds: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(value);
  if (!match) throw new UsageError(`--window is START:END in seconds (e.g. 0:120), not "${value}".`);
  return { analysis_start_seconds: Number(match[1]), analysis_end_seconds: Number(match[2]) };
}

/** `--metadata episode=42 --metadata draft=true`: numbers, booleans and null as JSON would read them. */
export function metadataOf(pairs: readonly string[] | undefined): Metadata | undefined {
  if (!pairs?.length) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--metadata is KEY=VALUE, not "${pair}".`);
      const raw = pair.slice(at + 1);
      const value = /^(-?\d+(\.\d+)?|true|false|null)$/.test(raw) ? (JSON.parse(raw) as number | boolean | null) : raw;
      return [pair.slice(0, at), value];
    }),
  );
}
