import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Stack, type ILocalBundling } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ytDlpLayerPaths } from '../../functions/runtime/contracts.js';

const layerDir = fileURLToPath(new URL('../../layers/yt-dlp/', import.meta.url));

/**
 * Debian's yt-dlp package, the one the container image installs (layers/ffmpeg/Dockerfile):
 * where bookworm puts its Python files, and the version they are. The layer is staged from these
 * installed files at synth, as the ffmpeg layer is from the npm-installed build: no docker, no
 * network. To move to another version, install it and change the pin (layers/yt-dlp/README.md).
 */
export const debianYtDlp = { directory: '/usr/lib/python3/dist-packages/yt_dlp', version: '2023.03.04' } as const;

const INSTALL_HINT = 'sudo apt-get install -y yt-dlp';

/** `__version__` of an installed yt_dlp package (its version.py), or undefined when there is none. */
function installedVersion(directory: string): string | undefined {
  const versionFile = join(directory, 'version.py');
  if (!existsSync(versionFile)) return undefined;
  return /^__version__\s*=\s*'([^']+)'/m.exec(readFileSync(versionFile, 'utf8'))?.[1];
}

/**
 * Writes the pinned yt-dlp, as installed and checked, into `directory`: `python/yt_dlp/` (Lambda puts
 * a layer's python/ on a Python function's import path, so it is /opt/python/yt_dlp there) without
 * the installing machine's bytecode, and `yt-dlp.json`, which names its path, version and licence.
 */
export function stageYtDlp(directory: string, source: string = debianYtDlp.directory): void {
  const version = installedVersion(source);
  if (version === undefined) {
    throw new Error(
      `Debian's yt-dlp is not installed (no ${source}), and the provider-resolver function's layer is made from it (layers/yt-dlp/README.md): ${INSTALL_HINT}`,
    );
  }
  if (version !== debianYtDlp.version) {
    throw new Error(
      `yt-dlp ${version} is installed at ${source} where the layer pins ${debianYtDlp.version} (infra/constructs/yt-dlp-layer.ts): install ${debianYtDlp.version} or change the pin`,
    );
  }
  cpSync(source, join(directory, 'python', 'yt_dlp'), { recursive: true, filter: (path) => basename(path) !== '__pycache__' });
  const manifest = { path: ytDlpLayerPaths['yt-dlp'], package: 'yt-dlp (Debian bookworm)', version, license: 'Unlicense' };
  writeFileSync(join(directory, 'yt-dlp.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Assembles the layer from the installed package on this machine; throws rather than fall back to docker. */
const localBuild: ILocalBundling = {
  tryBundle(outputDir: string): boolean {
    stageYtDlp(outputDir);
    return true;
  },
};

/** The stack's one YtDlpLayer, by this id, created on first use. */
const LAYER_ID = 'YtDlp';

/**
 * yt-dlp (pure Python, any architecture) as a layer for Python 3.12 functions: the provider-resolver
 * function's, which routes invoke to describe provider pages (routes carry no yt-dlp).
 */
export class YtDlpLayer extends Construct {
  /** The stack's one yt-dlp layer, created by the first function that needs it. */
  public static of(scope: Construct): YtDlpLayer {
    const stack = Stack.of(scope);
    return (stack.node.tryFindChild(LAYER_ID) as YtDlpLayer | undefined) ?? new YtDlpLayer(stack, LAYER_ID);
  }

  public readonly layer: LayerVersion;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    this.layer = new LayerVersion(this, 'Layer', {
      description: `yt-dlp ${debianYtDlp.version} (Debian bookworm's package) at ${ytDlpLayerPaths['yt-dlp']}`,
      compatibleRuntimes: [Runtime.PYTHON_3_12],
      compatibleArchitectures: [Architecture.ARM_64, Architecture.X86_64],
      license: 'Unlicense',
      code: Code.fromAsset(layerDir, {
        // The pin identifies the content (staging checks the installed version against it), so the
        // template and the asset hash need no installed yt-dlp. `layout` stands for stageYtDlp.
        assetHashType: AssetHashType.CUSTOM,
        assetHash: createHash('sha256')
          .update(JSON.stringify({ layout: 'python/yt_dlp + yt-dlp.json', version: debianYtDlp.version }))
          .digest('hex'),
        bundling: {
          local: localBuild,
          // Required by the API, never used: local bundling either succeeds or throws.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/python:3.12-slim'),
        },
      }),
    });
  }
}
