import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { analyzerTasks, transcriberTasks, transcriptionJobTask } from '../../infra/constructs/engine-access.js';

const run = promisify(execFile);

interface TemplateResource {
  Type: string;
  Properties?: { Description?: string; Handler?: string };
  Metadata?: Record<string, string>;
}

/** Issue 10's budgets: minified KB per kind of function, and one cold import. Tasks that run an engine (and carry Tracer) have none. */
const BUDGET_KB = { route: 250, authorizer: 150, task: 300 } as const;
const engineTasks: readonly string[] = [...analyzerTasks, ...transcriberTasks, transcriptionJobTask];
const IMPORT_BUDGET_MS = 150;
const IMPORTS_PER_BUNDLE = 5;

/** Bundles are imported from inside the repository, so `@aws-sdk/*` resolves to node_modules as it does to the runtime's SDK on Lambda. */
const importDir = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'bench-bundles');

const kindOf = (description: string): keyof typeof BUDGET_KB | 'other' => {
  if (/^(GET|POST|PATCH|DELETE) \/v1\//.test(description)) return 'route';
  if (/API key/.test(description)) return 'authorizer';
  const task = / workflow: (\w+) /.exec(description)?.[1];
  return task && !engineTasks.includes(task) ? 'task' : 'other';
};

/** Milliseconds to import `file` in a fresh Node process: the module-loading part of a cold start. */
async function coldImportMs(file: string): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return Number.parseFloat(stdout.trim());
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Sizes of the Lambda bundles exactly as `cdk synth` builds them for deployment, in KB, and the
 * median time to import each in a fresh Node process (the runtime provides the AWS SDK).
 */
interface BundleRow {
  function: string;
  kb: number;
  budgetKb: number | '-';
  importMs: number;
  sizeWithinBudget: 'yes' | 'NO';
  importWithinBudget: 'yes' | 'NO';
}

export async function benchBundles(): Promise<BundleRow[]> {
  const outdir = await mkdtemp(join(tmpdir(), 'mss-cdk-'));
  await run('npx', ['cdk', 'synth', '--quiet', '--output', outdir], { maxBuffer: 64 * 1024 * 1024 });
  const templateFile = (await readdir(outdir)).find((f) => f.endsWith('.template.json'));
  if (!templateFile) throw new Error('cdk synth wrote no template');
  const template = JSON.parse(await readFile(join(outdir, templateFile), 'utf8')) as { Resources: Record<string, TemplateResource> };
  await rm(importDir, { recursive: true, force: true });

  const rows: BundleRow[] = [];
  for (const resource of Object.values(template.Resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
    const description = resource.Properties?.Description ?? assetPath;
    const source = join(outdir, assetPath);
    const files = (await readdir(source)).filter((f) => f.endsWith('.mjs'));
    const bytes = (await Promise.all(files.map(async (f) => (await stat(join(source, f))).size))).reduce((a, b) => a + b, 0);
    const copy = join(importDir, assetPath);
    await mkdir(copy, { recursive: true });
    await cp(source, copy, { recursive: true });
    const times: number[] = [];
    for (let i = 0; i < IMPORTS_PER_BUNDLE; i++) times.push(await coldImportMs(join(copy, 'index.mjs')));
    const kind = kindOf(description);
    const kb = Math.round(bytes / 1024);
    const importMs = Math.round(median(times));
    rows.push({
      function: description,
      kb,
      budgetKb: kind === 'other' ? '-' : BUDGET_KB[kind],
      importMs,
      sizeWithinBudget: kind === 'other' || kb <= BUDGET_KB[kind] ? 'yes' : 'NO',
      importWithinBudget: importMs <= IMPORT_BUDGET_MS ? 'yes' : 'NO',
    });
  }
  await rm(outdir, { recursive: true, force: true });
  rows.sort((a, b) => a.function.localeCompare(b.function));
  const routes = rows.filter((row) => kindOf(row.function) === 'route');
  const summary = {
    function: `median of the ${routes.length} API routes (${routes.filter((row) => row.importMs <= IMPORT_BUDGET_MS).length} import within ${IMPORT_BUDGET_MS} ms)`,
    kb: median(routes.map((row) => row.kb)),
    budgetKb: BUDGET_KB.route,
    importMs: median(routes.map((row) => row.importMs)),
  };
  return [
    ...rows,
    { ...summary, sizeWithinBudget: summary.kb <= BUDGET_KB.route ? 'yes' : 'NO', importWithinBudget: summary.importMs <= IMPORT_BUDGET_MS ? 'yes' : 'NO' },
  ];
}
