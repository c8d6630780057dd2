import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

interface TemplateResource {
  Type: string;
  Properties?: { Description?: string };
  Metadata?: Record<string, string>;
}

/** Sizes of the Lambda bundles exactly as `cdk synth` builds them for deployment, in KB. */
export async function benchBundles(): Promise<{ function: string; kb: number }[]> {
  const outdir = await mkdtemp(join(tmpdir(), 'mss-cdk-'));
  await promisify(execFile)('npx', ['cdk', 'synth', '--quiet', '--output', outdir], { maxBuffer: 64 * 1024 * 1024 });
  const templateFile = (await readdir(outdir)).find((f) => f.endsWith('.template.json'));
  if (!templateFile) throw new Error('cdk synth wrote no template');
  const template = JSON.parse(await readFile(join(outdir, templateFile), 'utf8')) as { Resources: Record<string, TemplateResource> };

  const sizes: { function: string; kb: number }[] = [];
  for (const resource of Object.values(template.Resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
    const dir = join(outdir, assetPath);
    const files = await readdir(dir);
    const bytes = (await Promise.all(files.filter((f) => f.endsWith('.mjs')).map(async (f) => (await stat(join(dir, f))).size))).reduce((a, b) => a + b, 0);
    sizes.push({ function: resource.Properties?.Description ?? assetPath, kb: Math.round(bytes / 1024) });
  }
  return sizes.sort((a, b) => a.function.localeCompare(b.function));
}
