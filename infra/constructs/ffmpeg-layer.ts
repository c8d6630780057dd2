import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

const layerDir = fileURLToPath(new URL('../../layers/ffmpeg/', import.meta.url));
const buildScript = `${layerDir}build.js`;

/** Where Lambda mounts the layer's bin/ directory: the functions find the binaries through these. */
export const ffmpegPaths = { FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe' } as const;

/**
 * Runs layers/ffmpeg/build.js on this machine: no docker, and no network beyond the npm registry
 * (only while its cache in node_modules/.cache/ffmpeg-layer is cold).
 */
const localBuild: ILocalBundling = {
  tryBundle(outputDir: string): boolean {
    const result = spawnSync(process.execPath, [buildScript, outputDir], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) {
      // Not `return false`: CDK would fall back to docker, which this project does not use.
      throw new Error(`Building the ffmpeg layer failed (${result.error?.message ?? `exit ${String(result.status)}`}); see its output above`);
    }
    return true;
  },
};

/**
 * linux-arm64 static ffmpeg and ffprobe as a Lambda layer, mounted at /opt/bin (see
 * layers/ffmpeg/README.md). Attach it with ServiceFunction.bindFfmpeg to the functions that run them.
 */
export class FfmpegLayer extends Construct {
  public readonly layer: LayerVersion;

  public constructor(scope: Construct, id: string) {
    super(scope, id);

    this.layer = new LayerVersion(this, 'Layer', {
      description: 'Static ffmpeg and ffprobe for linux-arm64 in /opt/bin',
      compatibleArchitectures: [Architecture.ARM_64],
      license: 'GPL-3.0',
      code: Code.fromAsset(layerDir, {
        // The pins (package versions and integrity) live in the build script, so its content
        // identifies the layer: an unchanged script re-uses the staged asset and the deployed version.
        assetHashType: AssetHashType.CUSTOM,
        assetHash: createHash('sha256').update(readFileSync(buildScript)).digest('hex'),
        bundling: {
          local: localBuild,
          // Required by the API, never used: local bundling either succeeds or throws. It would run
          // the same script in a Node image.
          image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
          command: ['node', '/asset-input/build.js', '/asset-output'],
        },
      }),
    });
  }
}
