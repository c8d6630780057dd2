import { createHash } from 'node:crypto';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Stack, type ILocalBundling } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

import { ffmpegLayerPaths } from '../../functions/runtime/contracts.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const layerDir = fileURLToPath(new URL('../../layers/ffmpeg/', import.meta.url));

/** The architecture of the pinned build, and so of every function that carries the layer and of the container tasks. */
const ffmpegArchitecture = Architecture.X86_64;

/**
 * The pinned ffmpeg build: the linux-x64 static binaries that `npm ci` installs as optional
 * dependencies of the two devDependencies the local host and the tests resolve them through
 * (functions/adapters/ffmpeg-binaries.ts). package.json pins each wrapper exactly, the wrapper pins
 * its platform package exactly, and package-lock.json holds that package's integrity, which npm
 * ci verified. To change the build, change the wrappers' versions (layers/ffmpeg/README.md).
 */
const ffmpegSources = [
  { binary: 'ffmpeg', wrapper: '@ffmpeg-installer/ffmpeg', name: '@ffmpeg-installer/linux-x64', buildField: 'ffmpeg' },
  { binary: 'ffprobe', wrapper: '@ffprobe-installer/ffprobe', name: '@ffprobe-installer/linux-x64', buildField: 'ffprobe' },
] as const;

/** One binary of the pinned build as package-lock.json pins it. */
interface PinnedBinary {
  readonly binary: (typeof ffmpegSources)[number]['binary'];
  /** The npm package that ships the binary, its version and the integrity npm ci checked its tarball against. */
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly license: string;
}

/** One binary of the pinned build as installed here, verified. */
interface InstalledBinary extends PinnedBinary {
  /** The installed file. */
  readonly path: string;
  /** The static build it is, as its package names it (John Van Sickle's build date and git revision). */
  readonly build: string;
}

interface LockFile {
  readonly packages: Readonly<Record<string, { readonly version?: string; readonly integrity?: string; readonly license?: string }>>;
}

/**
 * The pinned build as package-lock.json names it: reads only the lock file, so it works on any
 * machine (the template and the layer's asset hash need no installed binary).
 */
export function pinnedFfmpegBuild(root: string = repoRoot): PinnedBinary[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as LockFile;
  return ffmpegSources.map(({ binary, wrapper, name }) => {
    // Where Node resolves it from the wrapper: nested under it, else hoisted.
    const entry = lock.packages[`node_modules/${wrapper}/node_modules/${name}`] ?? lock.packages[`node_modules/${name}`];
    if (!entry?.version || !entry.integrity) {
      throw new Error(`package-lock.json pins no ${name} (the ${binary} of ${wrapper}): is ${wrapper} still a devDependency?`);
    }
    return { binary, name, version: entry.version, integrity: entry.integrity, license: entry.license ?? 'GPL-3.0' };
  });
}

/** ELF, 64-bit, little-endian, e_machine 62 (x86-64), and no program interpreter (PT_INTERP): a static executable. */
function assertStaticX64Elf(path: string, what: string): void {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    const isElf = header.readUInt32BE(0) === 0x7f454c46 && header[4] === 2 && header[5] === 1;
    if (!isElf || header.readUInt16LE(18) !== 62) throw new Error(`${what} (${path}) is not a 64-bit x86-64 ELF executable`);
    const programHeaders = Number(header.readBigUInt64LE(0x20));
    const entrySize = header.readUInt16LE(0x36);
    const count = header.readUInt16LE(0x38);
    const table = Buffer.alloc(entrySize * count);
    readSync(fd, table, 0, table.length, programHeaders);
    for (let i = 0; i < count; i += 1) {
      if (table.readUInt32LE(i * entrySize) === 3) throw new Error(`${what} (${path}) is dynamically linked: the layer and the image need a static build`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The pinned build as installed by npm ci, verified: present, the version package-lock.json pins,
 * a static x86-64 executable. Throws, naming what to do, where npm did not install it: it does so
 * only on linux-x64 machines (the packages declare `os: linux`, `cpu: x64`).
 */
export function installedFfmpegBuild(root: string = repoRoot): InstalledBinary[] {
  const pins = pinnedFfmpegBuild(root);
  const fromRoot = createRequire(join(root, 'package.json'));
  return pins.map((pin) => {
    const { wrapper, buildField } = ffmpegSources.find((source) => source.binary === pin.binary)!;
    let manifestPath: string;
    try {
      manifestPath = createRequire(fromRoot.resolve(`${wrapper}/package.json`)).resolve(`${pin.name}/package.json`);
    } catch {
      throw new Error(
        [
          `${pin.name}@${pin.version} is not installed, and the ffmpeg Lambda layer and the container tasks' image are built from it (layers/ffmpeg/README.md).`,
          'npm installs it with `npm ci` on linux-x64 only: run `cdk synth` / `cdk deploy` there (CI, or a linux/amd64 container),',
          `or on another machine add them without changing package.json or the lock file: npm install --no-save --force ${pins.map((p) => `${p.name}@${p.version}`).join(' ')}`,
        ].join('\n'),
      );
    }
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    if (manifest.version !== pin.version) {
      throw new Error(`${pin.name} ${String(manifest.version)} is installed where package-lock.json pins ${pin.version}: run \`npm ci\``);
    }
    const path = join(dirname(manifestPath), pin.binary);
    if (!existsSync(path)) throw new Error(`${pin.name}@${pin.version} has no ${pin.binary} binary at ${path}: run \`npm ci\``);
    assertStaticX64Elf(path, `${pin.name}@${pin.version} ${pin.binary}`);
    return { ...pin, path, build: typeof manifest[buildField] === 'string' ? manifest[buildField] : pin.version };
  });
}

/**
 * Writes the pinned build, as installed and verified, into `directory`: `bin/ffmpeg` and
 * `bin/ffprobe` (copies, mode 0755; copy-on-write where the file system offers it) and
 * `ffmpeg.json`, which names for each binary its path on AWS, package, version, integrity, build
 * and licence. The layer's content, and part of the container image's build context.
 */
export function stageFfmpegBuild(directory: string, root: string = repoRoot): void {
  const installed = installedFfmpegBuild(root);
  mkdirSync(join(directory, 'bin'), { recursive: true });
  for (const { binary, path } of installed) {
    const target = join(directory, 'bin', binary);
    copyFileSync(path, target, constants.COPYFILE_FICLONE);
    chmodSync(target, 0o755);
  }
  const manifest = installed.map(({ binary, name, version, integrity, build, license }) => ({
    // Lambda mounts the layer's bin/ at /opt/bin; the image copies it to the same place.
    path: ffmpegLayerPaths[binary],
    name,
    version,
    integrity,
    build,
    license,
  }));
  writeFileSync(join(directory, 'ffmpeg.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Assembles the layer from the installed binaries on this machine: no docker, no network. */
const localBuild: ILocalBundling = {
  tryBundle(outputDir: string): boolean {
    // Throws rather than `return false` on failure: CDK would fall back to docker, which this
    // project does not use.
    stageFfmpegBuild(outputDir);
    return true;
  },
};

/** The stack's one FfmpegLayer, by this id, created on first use. */
const LAYER_ID = 'Ffmpeg';

/**
 * The pinned static ffmpeg and ffprobe (x86-64) as a Lambda layer, mounted at /opt/bin (see
 * layers/ffmpeg/README.md). Functions get it with ServiceFunction's `ffmpeg` prop, which also makes
 * them x86_64; `FfmpegLayer.of` gives the stack's one layer.
 */
export class FfmpegLayer extends Construct {
  /** The stack's one ffmpeg layer, created by the first function that needs it. */
  public static of(scope: Construct): FfmpegLayer {
    const stack = Stack.of(scope);
    return (stack.node.tryFindChild(LAYER_ID) as FfmpegLayer | undefined) ?? new FfmpegLayer(stack, LAYER_ID);
  }

  public readonly layer: LayerVersion;

  public constructor(scope: Construct, id: string) {
    super(scope, id);

    const pins = pinnedFfmpegBuild();
    this.layer = new LayerVersion(this, 'Layer', {
      description: `Static ffmpeg and ffprobe for x86-64 in /opt/bin: ${pins.map((p) => `${p.name}@${p.version}`).join(', ')}`,
      compatibleArchitectures: [ffmpegArchitecture],
      license: 'GPL-3.0',
      code: Code.fromAsset(layerDir, {
        // The lock file's pins identify the content (npm ci verified each tarball's integrity, and
        // the build checks the installed versions against them): an unchanged lock re-uses the
        // staged asset and the deployed layer version, and hashing it needs no installed binary.
        // `layout` stands for stageFfmpegBuild: change it when that writes anything else.
        assetHashType: AssetHashType.CUSTOM,
        assetHash: createHash('sha256')
          .update(JSON.stringify({ layout: 'bin/ + ffmpeg.json', pins }))
          .digest('hex'),
        bundling: {
          local: localBuild,
          // Required by the API, never used: local bundling either succeeds or throws.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24-bookworm-slim'),
        },
      }),
    });
  }
}
