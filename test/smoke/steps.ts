/**
 * The smoke test's steps and the shape of its step lines, shared by the script
 * (test/smoke/smoke.ts) and its CI test (test/integration/smoke.test.ts). No vitest here.
 */
export const STEPS = [
  'read account',
  'generate video',
  'create upload',
  'upload bytes',
  'complete upload',
  'create scanner',
  'start run',
  'wait for run',
  'read observations',
  'read moments',
  'check billing',
  'clean up',
] as const;

export type StepName = (typeof STEPS)[number];

/** `ok   3/12 create upload        412 ms  upl_...`: result, index/total, name, time, detail. */
export function stepLine(result: 'ok' | 'FAIL', name: StepName, ms: number, detail: string): string {
  const index = `${String(STEPS.indexOf(name) + 1).padStart(2)}/${STEPS.length}`;
  return `${result.padEnd(4)} ${index} ${name.padEnd(17)} ${elapsed(ms).padStart(8)}  ${detail}`.trimEnd();
}

/** Parses a line printed by stepLine; undefined for any other line. */
export function parseStepLine(line: string): { result: 'ok' | 'FAIL'; index: number; total: number; name: string; detail: string } | undefined {
  const match = /^(ok|FAIL) +(\d+)\/(\d+) (.{17}) +\S+ (?:ms|s)(?: {2}(.*))?$/.exec(line);
  if (!match) return undefined;
  const [, result, index, total, name, detail] = match;
  return { result: result as 'ok' | 'FAIL', index: Number(index), total: Number(total), name: (name ?? '').trim(), detail: detail ?? '' };
}

export const elapsed = (ms: number): string => (ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
