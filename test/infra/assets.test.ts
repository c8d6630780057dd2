/**
 * Reproducible assets: the ffmpeg layer and the container tasks' image are built from what `npm ci`
 * installed (one pinned ffmpeg build for the local host, the tests, Lambda and Fargate), `cdk
 * synth` downloads nothing, and the image's build context is the same bytes for the same inputs.
 * (`-c containerImageUri=...`, a prebuilt image instead: constructs.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installedFfmpegBuild, pinnedFfmpegBuild } from '../../infra/constructs/ffmpeg-layer.js';
import { stageContainerImage } from '../../infra/constructs/service-container-task.js';
import { offlineEnvironment } from './offline.js';
import { SHARED_ASSEMBLY_TIMEOUT_MS, sharedAssembly } from './shared-assembly.js';

const repoRoot = new URL('../../', import.meta.url).pathname;

const temporaryDirectories: string[] = [];
const temporaryDirectory = (prefix: string): string => {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirectories.push(directory);
  return directory;
};
afterAll(() => {
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
});

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every file under a directory, by its relative path, sorted. */
const listing = (directory: string): string[] =>
  readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(join(directory, path)).isFile())
    .sort();

describe('the pinned ffmpeg build', () => {
  it('is the linux-x64 packages package-lock.json pins, installed, static x86-64 executables: the binaries the local host and the tests run', () => {
    const installed = installedFfmpegBuild();
    expect(installed.map(({ name, version }) => `${name}@${version}`)).toEqual(pinnedFfmpegBuild().map(({ name, version }) => `${name}@${version}`));
    expect(installed.map(({ name }) => name)).toEqual(['@ffmpeg-installer/linux-x64', '@ffprobe-installer/linux-x64']);
    // What functions/adapters/ffmpeg-binaries.ts resolves where FFMPEG_PATH and FFPROBE_PATH are unset.
    const require = createRequire(import.meta.url);
    const local = [require('@ffmpeg-installer/ffmpeg') as { path: string }, require('@ffprobe-installer/ffprobe') as { path: string }];
    expect(installed.map(({ path }) => realpathSync(path))).toEqual(local.map(({ path }) => realpathSync(path)));
  });

  /** A checkout with this lock file and, in node_modules, the wrappers and whichever platform packages `installed` lists. */
  function checkout(installed: Record<string, { version: string; binary: Buffer }>): string {
    const root = temporaryDirectory('media-scanner-checkout-');
    writeFileSync(join(root, 'package.json'), '{"private": true}');
    copyFileSync(join(repoRoot, 'package-lock.json'), join(root, 'package-lock.json'));
    const write = (path: string, content: string | Buffer) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    };
    for (const wrapper of ['@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe'])
      write(`node_modules/${wrapper}/package.json`, JSON.stringify({ name: wrapper }));
    for (const [name, { version, binary }] of Object.entries(installed)) {
      write(`node_modules/${name}/package.json`, JSON.stringify({ name, version }));
      write(`node_modules/${name}/${name.includes('ffprobe') ? 'ffprobe' : 'ffmpeg'}`, binary);
    }
    return root;
  }

  /** The first bytes of an ELF executable for `machine` (62 x86-64, 183 AArch64), with one program header of `programType` (3: an interpreter). */
  function elf(machine: number, programType = 1): Buffer {
    const file = Buffer.alloc(64 + 56);
    file.writeUInt32BE(0x7f454c46, 0);
    file[4] = 2;
    file[5] = 1;
    file.writeUInt16LE(machine, 18);
    file.writeBigUInt64LE(64n, 0x20);
    file.writeUInt16LE(56, 0x36);
    file.writeUInt16LE(1, 0x38);
    file.writeUInt32LE(programType, 64);
    return file;
  }

  const [ffmpegPin, ffprobePin] = pinnedFfmpegBuild() as [ReturnType<typeof pinnedFfmpegBuild>[number], ReturnType<typeof pinnedFfmpegBuild>[number]];

  it('fails, naming the packages and what to do, where npm did not install them (it does so on linux-x64 only)', () => {
    const root = checkout({});
    expect(() => installedFfmpegBuild(root)).toThrow(`${ffmpegPin.name}@${ffmpegPin.version} is not installed`);
    expect(() => installedFfmpegBuild(root)).toThrow(
      /npm ci` on linux-x64 only[\s\S]*npm install --no-save --force @ffmpeg-installer\/linux-x64@4\.1\.0 @ffprobe-installer\/linux-x64@5\.2\.0/,
    );
  });

  it('refuses an installed version other than the lock’s, a binary of another architecture, and a dynamically linked one', () => {
    const good = { version: ffprobePin.version, binary: elf(62) };
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: '4.0.9', binary: elf(62) }, [ffprobePin.name]: good }))).toThrow(
      `${ffmpegPin.name} 4.0.9 is installed where package-lock.json pins ${ffmpegPin.version}: run \`npm ci\``,
    );
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(183) }, [ffprobePin.name]: good }))).toThrow(
      'is not a 64-bit x86-64 ELF executable',
    );
    expect(() => installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(62, 3) }, [ffprobePin.name]: good }))).toThrow(
      'is dynamically linked',
    );
    expect(installedFfmpegBuild(checkout({ [ffmpegPin.name]: { version: ffmpegPin.version, binary: elf(62) }, [ffprobePin.name]: good }))).toHaveLength(2);
  });
});

describe('synthesis downloads nothing', () => {
  it(
    'the shared synthesis, which built the layer and staged the image, ran with no network for it or any process it started',
    async () => {
      expect((await sharedAssembly()).offline).toBe(true);
    },
    SHARED_ASSEMBLY_TIMEOUT_MS,
  );

  it('and a download there fails: the `npm pack` of an ffmpeg package the layer build once ran', () => {
    const result = spawnSync('npm', ['pack', '@ffmpeg-installer/linux-arm64@4.1.4', '--dry-run', '--json'], {
      cwd: temporaryDirectory('media-scanner-pack-'),
      env: offlineEnvironment(process.env, temporaryDirectory('media-scanner-npm-cache-')),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('EOFFLINEGUARD');
  });
});

describe('the container image', () => {
  it(
    'is staged as the same bytes from the same inputs, wherever it is staged: its asset hash changes only with the bundle and the binaries',
    async () => {
      const { assemblyDirectory, stackArtifactId } = await sharedAssembly();
      const manifest = JSON.parse(readFileSync(join(assemblyDirectory, `${stackArtifactId}.assets.json`), 'utf8')) as {
        dockerImages: Record<string, { source: { directory: string } }>;
      };
      const [image] = Object.values(manifest.dockerImages);
      const staged = join(assemblyDirectory, image!.source.directory);
      // Staged again elsewhere: the same files, and the bundle byte for byte (esbuild is deterministic,
      // and the source map's paths do not depend on where it is staged).
      const again = temporaryDirectory('media-scanner-image-again-');
      stageContainerImage(again);
      expect(listing(again)).toEqual(listing(staged));
      // The speech folder: the moonshine models and onnxruntime-node's linux-x64 runtime (its own test is in signals-task.test.ts).
      const speech = listing(staged).filter((file) => file.startsWith('speech/'));
      expect(speech).toEqual(
        expect.arrayContaining([
          'speech/decoder_model_merged.onnx',
          'speech/encoder_model.onnx',
          'speech/silero_vad.onnx',
          'speech/node_modules/onnxruntime-node/bin/napi-v3/linux/x64/onnxruntime_binding.node',
        ]),
      );
      expect(speech.filter((file) => /\/(darwin|win32|arm64)\/|\.d\.ts$|\.map$|cuda/.test(file))).toEqual([]);
      expect(listing(staged).filter((file) => !file.startsWith('speech/'))).toEqual([
        'Dockerfile',
        'bin/ffmpeg',
        'bin/ffprobe',
        'detector/blazeface.bin',
        'detector/blazeface.json',
        'detector/tfjs-backend-wasm-simd.wasm',
        'detector/tfjs-backend-wasm-threaded-simd.wasm',
        'detector/tfjs-backend-wasm.wasm',
        'ffmpeg.json',
        'fonts/DejaVuSans-Bold.ttf',
        'fonts/DejaVuSans.ttf',
        'fonts/DejaVuSansMono-Bold.ttf',
        'fonts/DejaVuSerif-Bold.ttf',
        'fonts/LICENSE',
        'task/acquire-source.mjs',
        'task/acquire-source.mjs.map',
        'task/extract-signals.mjs',
        'task/extract-signals.mjs.map',
        'task/render-moment.mjs',
        'task/render-moment.mjs.map',
      ]);
      for (const file of ['Dockerfile', 'ffmpeg.json', 'task/extract-signals.mjs', 'task/render-moment.mjs.map', 'speech/encoder_model.onnx'])
        expect(sha256(join(again, file)), file).toBe(sha256(join(staged, file)));
      // The binaries: the installed files (the layer's copies are compared byte for byte in validation.test.ts).
      for (const { binary, path } of installedFfmpegBuild()) expect(statSync(join(staged, 'bin', binary)).size, binary).toBe(statSync(path).size);
    },
    SHARED_ASSEMBLY_TIMEOUT_MS,
  );
});
