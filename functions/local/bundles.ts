import { rm } from 'node:fs/promises';
import { join } from 'node:path';

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Where the local host puts the modules it bundles for its child processes (container tasks,
 * sandboxed tasks, the call recorder's preload): inside the repository, so their packages resolve
 * from its node_modules, which every unit's sandbox keeps readable.
 */
export const bundleDir = join(repoRoot, 'node_modules', '.cache', 'media-scanner');

/** A module to bundle: a file, or module text whose imports are absolute paths. */
type BundleSource = { readonly entry: string } | { readonly contents: string };

/**
 * Modules bundled once per host process, as the Dockerfile bundles a container task's entrypoint:
 * a child then starts in a fraction of the time tsx needs to compile the module graph again.
 */
export class LocalBundles {
  private readonly bundles = new Map<string, Promise<string>>();

  /** The bundle of `source` under `name` (unique per module), built on first use. */
  of(name: string, source: BundleSource): Promise<string> {
    let bundle = this.bundles.get(name);
    if (!bundle) {
      const outfile = join(bundleDir, `${name}-${process.pid}.mjs`);
      const input = 'entry' in source ? { entryPoints: [source.entry] } : { stdin: { contents: source.contents, resolveDir: repoRoot, loader: 'ts' as const } };
      // esbuild is loaded here only: the modules bundled never bundle.
      bundle = import('esbuild')
        .then(({ build }) =>
          build({ ...input, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node24', outfile, logLevel: 'silent' }),
        )
        .then(() => outfile);
      bundle.catch(() => this.bundles.delete(name));
      this.bundles.set(name, bundle);
    }
    return bundle;
  }

  /** Removes the bundles (host shutdown). */
  removeAll(): void {
    for (const bundle of this.bundles.values()) void bundle.then((file) => rm(file, { force: true })).catch(() => undefined);
  }
}
