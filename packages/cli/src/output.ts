/**
 * How the CLI prints: JSON for scripts (`--json`), aligned tables and key/value blocks for
 * people, errors on stderr with the API's code and request id, and distinct exit codes.
 */
import { MediaScannerError, WaitTimeoutError } from '../../client/src/index.js';
import { UsageError } from './usage-error.js';

/** Exit codes: scripts can tell a typo from a refused request from work that ended badly. */
export const exitCodes = { ok: 0, unexpected: 1, usage: 2, api: 3, failedWork: 4, timeout: 5 } as const;

export { UsageError } from './usage-error.js';

/** The work ran and ended badly (a failed run or upload, a partial batch): exit 4, after printing it. */
export class FailedWork extends Error {
  override name = 'FailedWork';
  constructor(
    message: string,
    readonly record: unknown,
  ) {
    super(message);
  }
}

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

/** Columns padded to their widest cell, a header in capitals; long cells are cut at 60 characters. */
export function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  const cut = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);
  const cells = rows.map((row) => columns.map((column) => cut(cell(row[column]))));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: readonly string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...cells.map(line)].join('\n');
}

/** `key: value` lines, keys aligned. */
export function keyValues(record: Record<string, unknown>, keys: readonly string[] = Object.keys(record)): string {
  const width = Math.max(...keys.map((key) => key.length));
  return keys.map((key) => `${`${key}:`.padEnd(width + 1)} ${cell(record[key])}`).join('\n');
}

export const bytes = (n: number): string => {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
};

export const seconds = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);

export interface Printer {
  json: boolean;
  /** The command's result: JSON, or what `human` makes of it. */
  result(value: unknown, human: () => string): void;
  /** A step of a longer command, for people only (stderr). */
  note(message: string): void;
}

export function printer(json: boolean): Printer {
  return {
    json,
    result: (value, human) => process.stdout.write(`${json ? JSON.stringify(value, null, 2) : human()}\n`),
    note: (message) => {
      if (!json) process.stderr.write(`${message}\n`);
    },
  };
}

/** Prints an error as the API gave it and says which exit code it means. */
export function reportError(error: unknown, json: boolean): number {
  const write = (payload: Record<string, unknown>, text: string) => process.stderr.write(`${json ? JSON.stringify({ error: payload }) : text}\n`);
  if (error instanceof MediaScannerError) {
    const request = error.requestId ? ` (request ${error.requestId})` : '';
    write(
      { status: error.status, code: error.code, message: error.message, param: error.param, request_id: error.requestId },
      `error: ${error.code} (HTTP ${error.status}): ${error.message}${error.param ? ` [${error.param}]` : ''}${request}`,
    );
    return exitCodes.api;
  }
  if (error instanceof UsageError) {
    write({ code: 'usage', message: error.message }, `error: ${error.message}`);
    return exitCodes.usage;
  }
  if (error instanceof FailedWork) {
    write({ code: 'failed_work', message: error.message, record: error.record }, `error: ${error.message}`);
    return exitCodes.failedWork;
  }
  if (error instanceof WaitTimeoutError) {
    write({ code: 'timeout', message: error.message }, `error: ${error.message}`);
    return exitCodes.timeout;
  }
  // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, a DNS failure).
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const message = error instanceof Error ? `${error.message}${cause}` : String(error);
  write({ code: 'unexpected', message }, `error: ${message}`);
  return exitCodes.unexpected;
}
