/**
 * The layer rules of .dependency-cruiser.cjs (run by `npm run lint`) refuse the imports they name
 * and let the allowed ones through: a scratch tree holds one importing file per case, and is
 * cruised once with the project's own rule set, as `npm run lint` cruises the real tree.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const exporting = 'export const value = 1;\n';
const importing = (specifier: string) => `import { value } from '${specifier}';\nexport const used = value;\n`;

/** Each case: the importing file, what it imports, and the rule that must refuse it (none: allowed). */
const cases = [
  { from: 'functions/domain/runs/model.ts', imports: '../../adapters/table/keys.js', rule: 'domain-imports-only-shared' },
  { from: 'functions/domain/runs/submit.ts', imports: '../../resources/runs/request.js', rule: 'domain-imports-only-shared' },
  { from: 'functions/domain/uploads/store.ts', imports: '@aws-sdk/client-s3', rule: 'domain-imports-no-aws' },
  { from: 'functions/shared/tracer.ts', imports: '../composition/table.js', rule: 'shared-is-the-ground-floor' },
  { from: 'functions/adapters/media/probe.ts', imports: '../../composition/host.js', rule: 'adapters-below-hosts' },
  { from: 'functions/api/runs/create.ts', imports: '../../local/host.js', rule: 'entry-files-run-on-aws' },
  { from: 'infra/stack.ts', imports: '../functions/local/host.js', rule: 'infra-never-imports-the-local-host' },
  // A cycle is reported once, at the module the cruise reaches first.
  { from: 'functions/domain/batches/workflow.ts', imports: '../runs/pipeline.js', rule: 'no-import-cycles' },
  { from: 'functions/domain/scanners/model.ts', imports: '../../shared/logger.js', rule: undefined },
  { from: 'functions/adapters/table/run-store.ts', imports: '../../domain/scanners/model.js', rule: undefined },
  { from: 'functions/composition/runs.ts', imports: '../adapters/table/run-store.js', rule: undefined },
  { from: 'functions/local/server.ts', imports: '../composition/runs.js', rule: undefined },
];
const imported = [
  'functions/adapters/table/keys.ts',
  'functions/resources/runs/request.ts',
  'functions/composition/table.ts',
  'functions/composition/host.ts',
  'functions/local/host.ts',
  'functions/shared/logger.ts',
];

let scratch: string;
let refusedBy: Map<string, string[]>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'layers-'));
  await copyFile(join(root, '.dependency-cruiser.cjs'), join(scratch, '.dependency-cruiser.cjs'));
  await writeFile(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
  const files = new Map<string, string>(imported.map((path) => [path, exporting]));
  for (const { from, imports } of cases) files.set(from, (files.get(from) ?? '') + importing(imports) + exporting);
  files.set('functions/domain/runs/pipeline.ts', importing('../batches/workflow.js') + exporting);
  for (const [path, source] of files) {
    await mkdir(dirname(join(scratch, path)), { recursive: true });
    await writeFile(join(scratch, path), source);
  }
  const cruised = await promisify(execFile)(
    join(root, 'node_modules/.bin/depcruise'),
    ['functions', 'infra', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    {
      cwd: scratch,
    },
  ).catch((failed: { stdout: string }) => failed);
  const report = JSON.parse(cruised.stdout) as { summary: { violations: { from: string; rule: { name: string } }[] } };
  refusedBy = new Map();
  for (const { from, rule } of report.summary.violations) refusedBy.set(from, [...(refusedBy.get(from) ?? []), rule.name]);
}, 120_000);

afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('layer rules (npm run lint)', () => {
  it.each(cases.filter((layerCase) => layerCase.rule).map((layerCase) => [`${layerCase.from} -> ${layerCase.imports}`, layerCase] as const))(
    '%s: refused',
    (_name, { from, rule }) => {
      expect(refusedBy.get(from)).toContain(rule);
    },
  );

  it('imports down the floors pass: adapters -> domain -> shared, composition -> adapters, local -> composition', () => {
    const allowed = cases.filter((layerCase) => !layerCase.rule).map((layerCase) => layerCase.from);
    expect(allowed.filter((from) => refusedBy.has(from))).toEqual([]);
  });
});
