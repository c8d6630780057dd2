#!/usr/bin/env node
/**
 * Builds the ffmpeg Lambda layer: linux-arm64 static ffmpeg and ffprobe in `<outputDir>/bin/`
 * (mounted at /opt/bin/ in the function), plus a manifest naming where each binary came from.
 *
 *   node layers/ffmpeg/build.js <outputDir>
 *
 * The binaries ship inside two npm packages that declare `cpu: arm64`, so npm will not install them
 * as dependencies on an x64 machine; `npm pack` fetches their tarballs from the registry instead.
 * Each tarball must match the integrity pinned below; the extracted binary must be an AArch64 ELF.
 * Verified binaries are cached in node_modules/.cache/ffmpeg-layer/ (FFMPEG_LAYER_CACHE overrides),
 * so only the first build on a machine downloads anything (about 40 MB).
 *
 * The CDK construct (infra/constructs/ffmpeg-layer.ts) runs this script as local bundling and uses
 * a hash of this file as the asset hash: changing a pin changes the layer, editing the README does not.
 */
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** The pinned sources: one binary from each package, verified by the registry's sha512 integrity. */
export const sources = [
  {
    binary: 'ffmpeg',
    name: '@ffmpeg-installer/linux-arm64',
    version: '4.1.4',
    integrity: 'sha512-dljEqAOD0oIM6O6DxBW9US/FkvqvQwgJ2lGHOwHDDwu/pX8+V0YsDL1xqHbj1DMX/+nP9rxw7G7gcUvGspSoKg==',
    license: 'GPL-3.0 (static build by John Van Sickle, https://www.johnvansickle.com/ffmpeg/)',
  },
  {
    binary: 'ffprobe',
    name: '@ffprobe-installer/linux-arm64',
    version: '5.2.0',
    integrity: 'sha512-X1VvWtlLs6ScP73biVLuHD5ohKJKsMTa0vafCESOen4mOoNeLAYbxOVxDWAdFz9cpZgRiloFj5QD6nDj8E28yQ==',
    license: 'GPL-3.0 (static build by John Van Sickle, https://www.johnvansickle.com/ffmpeg/)',
  },
];

const here = dirname(fileURLToPath(import.meta.url));
const defaultCacheDir = resolve(here, '../../node_modules/.cache/ffmpeg-layer');

const log = (message) => process.stderr.write(`[ffmpeg-layer] ${message}\n`);

/** `sha512-<base64>` of a buffer, as npm writes integrity. */
const integrityOf = (data) => `sha512-${createHash('sha512').update(data).digest('base64')}`;

/** e_machine 183 (EM_AARCH64) in a 64-bit little-endian ELF header. */
function assertAarch64Elf(data, what) {
  const isElf = data.length > 20 && data.readUInt32BE(0) === 0x7f454c46;
  if (!isElf || data[4] !== 2 || data[5] !== 1 || data.readUInt16LE(18) !== 183) {
    throw new Error(`${what} is not a 64-bit AArch64 ELF executable`);
  }
}

/** The contents of one regular file in a gzipped tar (npm tarballs: ustar, optional pax headers). */
function extractFromTarball(tgz, wanted) {
  const tar = gunzipSync(tgz);
  let offset = 0;
  let paxPath;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start, length) => header.toString('utf8', start, start + length).replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      paxPath = match?.[1];
      continue;
    }
    paxPath = undefined;
    if ((type === '0' || type === '7') && name === wanted) return Buffer.from(body);
  }
  throw new Error(`${wanted} not found in the tarball`);
}

/** Runs `npm pack <spec>` into `dir` and returns the tarball's path. */
function npmPack(spec, dir) {
  const result = spawnSync('npm', ['pack', spec, '--pack-destination', dir, '--json', '--ignore-scripts', '--loglevel=error'], {
    cwd: dir,
    encoding: 'utf8',
    shell: process.platform === 'win32',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`npm pack ${spec} failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}`);
  }
  const [packed] = JSON.parse(result.stdout);
  return join(dir, packed.filename);
}

/** The verified binary of one source, from the cache or freshly downloaded into it. */
function cachedBinary(source, cacheDir) {
  const entryDir = join(cacheDir, `${source.name.replace('/', '+')}@${source.version}`);
  const binaryPath = join(entryDir, source.binary);
  const markerPath = join(entryDir, 'integrity');
  if (existsSync(binaryPath) && existsSync(markerPath) && readFileSync(markerPath, 'utf8') === source.integrity) return binaryPath;

  const spec = `${source.name}@${source.version}`;
  log(`downloading ${spec} from the npm registry`);
  mkdirSync(cacheDir, { recursive: true });
  const workDir = mkdtempSync(join(cacheDir, '.download-'));
  try {
    const tgz = readFileSync(npmPack(spec, workDir));
    const actual = integrityOf(tgz);
    if (actual !== source.integrity) throw new Error(`${spec}: integrity ${actual} does not match the pinned ${source.integrity}`);
    const binary = extractFromTarball(tgz, `package/${source.binary}`);
    assertAarch64Elf(binary, `${spec} ${source.binary}`);

    // Concurrent builds (parallel test workers) may race here: each writes its own file and renames
    // it into place, so a reader never sees a partial binary.
    mkdirSync(entryDir, { recursive: true });
    const partial = join(entryDir, `.${source.binary}.${randomUUID()}`);
    writeFileSync(partial, binary, { mode: 0o755 });
    renameSync(partial, binaryPath);
    writeFileSync(markerPath, source.integrity);
    return binaryPath;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Writes the layer's contents into `outputDir`: bin/ffmpeg, bin/ffprobe (0755) and ffmpeg-layer.json. */
export function buildLayer(outputDir, cacheDir = process.env.FFMPEG_LAYER_CACHE || defaultCacheDir) {
  const binDir = join(outputDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  for (const source of sources) {
    const target = join(binDir, source.binary);
    // A copy-on-write clone where the file system offers one, else a plain copy.
    copyFileSync(cachedBinary(source, cacheDir), target, constants.COPYFILE_FICLONE);
    chmodSync(target, 0o755);
  }
  const manifest = sources.map(({ binary, name, version, integrity, license }) => ({ path: `/opt/bin/${binary}`, name, version, integrity, license }));
  writeFileSync(join(outputDir, 'ffmpeg-layer.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outputDir = process.argv[2];
  if (!outputDir) {
    process.stderr.write('usage: node layers/ffmpeg/build.js <outputDir>\n');
    process.exit(2);
  }
  try {
    buildLayer(resolve(outputDir));
  } catch (error) {
    process.stderr.write(`[ffmpeg-layer] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
