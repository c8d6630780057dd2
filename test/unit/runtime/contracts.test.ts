import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canWrite, DOCKERFILE, imageFacts, LAMBDA_USER, runtimeContracts, units, type ContainerContract } from '../../../functions/runtime/contracts.js';
import { MOMENT_SECONDS } from '../../../functions/domain/scanners/model.js';
import { POCKETSPHINX_DEFAULTS } from '../../../functions/config.js';
import { ASPECT_RATIOS } from '../../../functions/domain/renders/presets.js';

const dockerfile = readFileSync(DOCKERFILE, 'utf8');
/** The image as it was before it declared its scratch volume. */
const withoutVolume = dockerfile.replace(/^VOLUME .*$/m, '');

const containers = (image = imageFacts()) => [...runtimeContracts(image).values()].filter((c): c is ContainerContract => c.kind === 'container');

describe('the image facts read from the Dockerfile', () => {
  it('gives the user, the volumes, the environment and the packages', () => {
    const facts = imageFacts();
    expect(facts.user).toEqual({ name: 'node', uid: 1000, gid: 1000 });
    expect(facts.volumes).toEqual(['/tmp']);
    expect(facts.environment).toMatchObject({ FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe', CAPTION_FONTS_DIR: '/opt/fonts' });
    expect(facts.packages).toEqual(['yt-dlp', 'ca-certificates', 'pocketsphinx', 'pocketsphinx-en-us']);
  });

  it('refuses a user the base image does not have', () => {
    expect(() => imageFacts(`${dockerfile}\nUSER app\n`)).toThrow(/USER app is not a user of the base image/);
  });
});

describe('container contracts', () => {
  it('give every task a writable /tmp on task storage when the image declares the volume', () => {
    for (const contract of containers()) {
      expect(contract.writable).toEqual([expect.objectContaining({ path: '/tmp', mode: 0o1777 })]);
      expect(canWrite(contract.user, contract.writable[0]!), contract.unit).toBe(true);
    }
  });

  it('leave /tmp root-owned 0755, unwritable for the image user, when the image does not declare it (Fargate bind mounts)', () => {
    for (const contract of containers(imageFacts(withoutVolume))) {
      expect(contract.writable[0]).toMatchObject({ path: '/tmp', owner: { uid: 0 }, mode: 0o755 });
      expect(canWrite(contract.user, contract.writable[0]!), contract.unit).toBe(false);
    }
  });

  it('ship yt-dlp to container tasks and the provider resolver (its layer) only: no other function can run it', () => {
    for (const contract of runtimeContracts().values()) {
      expect('yt-dlp' in contract.binaries, contract.unit).toBe(contract.kind === 'container' || contract.unit === units.providerResolver);
    }
  });

  it('ship pocketsphinx and its US English model, the moonshine transcriber’s word aligner, to container tasks where the configuration looks for them', () => {
    for (const contract of runtimeContracts().values()) {
      if (contract.kind === 'container') {
        expect(contract.binaries.pocketsphinx, contract.unit).toBe(POCKETSPHINX_DEFAULTS.bin);
        expect(contract.files['pocketsphinx-model'], contract.unit).toBe(POCKETSPHINX_DEFAULTS.modelDir);
      } else expect(contract.binaries.pocketsphinx, contract.unit).toBeUndefined();
    }
    // Each from its package: without the model, the binary alone.
    const withoutModel = containers(imageFacts(dockerfile.replace(' pocketsphinx-en-us', '')));
    expect(withoutModel[0]!.binaries.pocketsphinx).toBe(POCKETSPHINX_DEFAULTS.bin);
    expect(withoutModel[0]!.files['pocketsphinx-model']).toBeUndefined();
  });

  it('choose each task program by command in the one image', () => {
    const commands = containers().map((c) => c.command.join(' '));
    expect(new Set(commands).size).toBe(commands.length);
    for (const command of commands) expect(command).toMatch(/^\/task\/[a-z-]+\.mjs$/);
  });

  it('give the render task room for the largest render the limits allow, twice over', () => {
    const render = runtimeContracts().get(units.container('render', 'RenderTaskDefinitionArn')) as ContainerContract;
    // The longest moment at the largest output (`original` of a 4K source), at a bitrate x264 at crf 21
    // stays under even on noisy footage (30 Mbit/s at 1080p, scaled by pixels).
    const pixels = Math.max(...ASPECT_RATIOS.map((a) => (a.width ?? 3840) * (a.height ?? 2160)));
    const worstBitsPerSecond = 30_000_000 * (pixels / (1920 * 1080));
    const largestRenderMiB = (MOMENT_SECONDS.max * worstBitsPerSecond) / 8 / 2 ** 20;
    expect(render.writable[0]!.sizeMiB).toBeGreaterThan(2 * largestRenderMiB);
  });
});

describe('function contracts', () => {
  it('run as Lambda’s user with only /tmp writable, the layers’ ffmpeg and yt-dlp where the tables ask for them', () => {
    for (const contract of runtimeContracts().values()) {
      if (contract.kind !== 'lambda') continue;
      expect(contract.user).toEqual(LAMBDA_USER);
      expect(contract.writable.map((w) => w.path)).toEqual(['/tmp']);
      expect(canWrite(contract.user, contract.writable[0]!)).toBe(true);
      expect(Object.keys(contract.binaries).sort()).toEqual([
        ...(contract.ffmpegLayer ? ['ffmpeg', 'ffprobe'] : []),
        ...(contract.ytDlpLayer ? ['yt-dlp'] : []),
      ]);
      expect(contract.architecture).toBe(contract.ffmpegLayer ? 'x86_64' : 'arm64');
    }
  });
});
