/**
 * The console's build (issue 28): esbuild bundles console/src into one minified, content-hashed
 * script and stylesheet and writes index.html around them, all in memory, so the local host can
 * serve a fresh build at start and CDK can deploy the same files at synth. index.html has no inline
 * script or style: the console's CSP (script-src 'self'; style-src 'self') holds.
 * `npm run build:console` writes the files to console/dist/.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** One built file; `path` is relative to the console's root URL (`/console/`): `index.html`, `assets/main-<hash>.js`. */
export interface ConsoleAsset {
  path: string;
  contentType: string;
  body: Uint8Array;
}
export type ConsoleAssets = ConsoleAsset[];

export interface BuildConsoleOptions {
  /** @default true */
  minify?: boolean;
}

const consoleDir = dirname(fileURLToPath(import.meta.url));
/** Where the assets are served from: the same on both hosts. */
export const consoleAssetsBase = '/console/assets/';
const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

export async function buildConsole(options: BuildConsoleOptions = {}): Promise<ConsoleAssets> {
  const outdir = join(consoleDir, 'dist', 'assets');
  const result = await build({
    entryPoints: [join(consoleDir, 'src', 'main.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: options.minify ?? true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets: ConsoleAssets = result.outputFiles.map((file) => ({
    path: `assets/${relative(outdir, file.path)}`,
    contentType: contentTypes[extname(file.path)] ?? 'application/octet-stream',
    body: file.contents,
  }));
  const urlOf = (extension: string) => {
    const asset = assets.find((a) => a.path.endsWith(extension));
    if (!asset) throw new Error(`The console build produced no ${extension} file.`);
    return `${consoleAssetsBase}${asset.path.slice('assets/'.length)}`;
  };
  const template = await readFile(join(consoleDir, 'index.html'), 'utf8');
  const html = template.replace('%JS%', urlOf('.js')).replace('%CSS%', urlOf('.css'));
  return [{ path: 'index.html', contentType: contentTypes['.html'] ?? 'text/html', body: new TextEncoder().encode(html) }, ...assets];
}

/** `npm run build:console`: the same files, written to console/dist/. */
async function writeDist(): Promise<void> {
  const dist = join(consoleDir, 'dist');
  const assets = await buildConsole();
  await rm(dist, { recursive: true, force: true });
  for (const asset of assets) {
    const file = join(dist, asset.path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, asset.body);
    console.log(`${relative(process.cwd(), file)}  ${asset.body.byteLength} B`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeDist();
