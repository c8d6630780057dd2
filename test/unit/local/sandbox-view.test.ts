/**
 * The sandbox's view of a unit (functions/local/sandbox/view.ts) is its run-time contract laid
 * over this machine: these check the bubblewrap command line it makes from a contract, without
 * running bubblewrap (test/integration/sandbox.test.ts and test/parity run it).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DOCKERFILE, imageFacts, lambdaContractOf, runtimeContracts, units, type ContainerContract } from '../../../functions/runtime/contracts.js';
import { bwrapArgs, unitView, type HostFacts } from '../../../functions/local/sandbox/view.js';
import { withoutVolume } from '../../helpers/sandbox.js';

const facts: HostFacts = {
  binaries: {
    ffmpeg: '/repo/node_modules/ffmpeg',
    ffprobe: '/repo/node_modules/ffprobe',
    'yt-dlp': '/usr/bin/yt-dlp',
    pocketsphinx: '/home/me/sphinx/bin/pocketsphinx_continuous',
  },
  interpreters: { 'yt-dlp': [{ source: '/usr/bin/python3.11', path: '/usr/bin/python3' }] },
  files: {
    fonts: [{ name: 'DejaVuSans.ttf', source: '/repo/node_modules/dejavu/ttf/DejaVuSans.ttf' }],
    detector: [{ name: 'blazeface.bin', source: '/repo/node_modules/human/models/blazeface.bin' }],
    speech: [{ name: 'node_modules/onnxruntime-node/package.json', source: '/repo/node_modules/onnxruntime-node/package.json' }],
    'pocketsphinx-model': [{ name: 'cmudict-en-us.dict', source: '/home/me/sphinx/model/cmudict-en-us.dict' }],
  },
  executableDirs: ['/usr/bin', '/usr/local/bin', '/opt'],
  node: '/repo/node_modules/node/bin/node',
  python: '/usr/bin/python3.11',
  addedWritable: ['/repo/test-results/aws-calls.ndjson'],
  inPlace: ['/repo'],
};

const acquisition = (dockerfile: string) =>
  runtimeContracts(imageFacts(dockerfile)).get(units.container('analysis', 'AcquireSourceTaskDefinitionArn')) as ContainerContract;
const realDockerfile = readFileSync(DOCKERFILE, 'utf8');
const withoutVolumeLine = withoutVolume(realDockerfile);

/** The values that follow each occurrence of `flag` (one value per flag). */
const after = (args: string[], flag: string, count = 1) => args.flatMap((arg, i) => (arg === flag ? [args.slice(i + 1, i + 1 + count).join(' ')] : []));

describe('unitView and bwrapArgs', () => {
  test('a container task: read-only root, its user, /tmp as a tmpfs of its size and mode, the image binaries at their AWS paths', () => {
    const contract = acquisition(realDockerfile);
    const args = bwrapArgs(unitView(contract, facts), '/repo/node_modules/node/bin/node', ['/repo/bundle.mjs'], '/repo');
    expect(args.slice(0, 3)).toEqual(['--die-with-parent', '--new-session', '--unshare-pid']);
    expect(after(args, '--uid')).toEqual(['1000']);
    expect(after(args, '--gid')).toEqual(['1000']);
    expect(after(args, '--ro-bind', 2)).toEqual(
      expect.arrayContaining([
        '/ /',
        '/repo/node_modules/ffmpeg /opt/bin/ffmpeg',
        '/repo/node_modules/ffprobe /opt/bin/ffprobe',
        '/usr/bin/yt-dlp /usr/bin/yt-dlp',
        '/usr/bin/python3.11 /usr/bin/python3',
        '/repo/node_modules/dejavu/ttf/DejaVuSans.ttf /opt/fonts/DejaVuSans.ttf',
        '/repo/node_modules/human/models/blazeface.bin /opt/detector/blazeface.bin',
        '/repo/node_modules/onnxruntime-node/package.json /opt/speech/node_modules/onnxruntime-node/package.json',
        '/repo/node_modules/node/bin/node /repo/node_modules/node/bin/node',
      ]),
    );
    // 30 GiB of task storage, world-writable as the image's VOLUME has it; writable: no remount.
    expect(args.join(' ')).toContain(`--perms 1777 --size ${30 * 1024 ** 3} --tmpfs /tmp`);
    expect(after(args, '--remount-ro')).toEqual(['/usr/bin', '/usr/local/bin', '/opt']);
    // Mounts go by depth, so none hides another made before it.
    expect(after(args, '--tmpfs')).toEqual(['/opt', '/tmp', '/usr/bin', '/usr/local/bin']);
    // The npm binaries are run by their AWS paths only; /usr/bin/yt-dlp is in a hidden directory already.
    expect(after(args, '--ro-bind', 2)).toEqual(expect.arrayContaining(['/dev/null /repo/node_modules/ffmpeg', '/dev/null /repo/node_modules/ffprobe']));
    expect(after(args, '--bind', 2)).toEqual(['/repo/test-results/aws-calls.ndjson /repo/test-results/aws-calls.ndjson']);
    expect(args).not.toContain('--unshare-net');
    expect(args.slice(-5)).toEqual(['--chdir', '/repo', '--', '/repo/node_modules/node/bin/node', '/repo/bundle.mjs']);
  });

  test('without the VOLUME line, /tmp is root 0755, which the image user cannot write: read-only in the view', () => {
    const args = bwrapArgs(unitView(acquisition(withoutVolumeLine), facts), 'node', [], '/repo');
    expect(args.join(' ')).toContain('--perms 0755');
    expect(after(args, '--remount-ro')).toContain('/tmp');
  });

  test('a route without the ffmpeg layer ships no binary; one with it runs /opt/bin/ffprobe as the Lambda user in 512 MiB of /tmp', () => {
    const bare = unitView(lambdaContractOf(units.route('GET /v1/account')), facts);
    expect([...bare.commands.keys()]).toEqual([]);
    const probing = unitView(lambdaContractOf(units.route('POST /v1/sources/preflight')), facts);
    expect(probing.commands.get('/repo/node_modules/ffprobe')).toBe('/opt/bin/ffprobe');
    expect(probing.commands.get('/usr/bin/yt-dlp')).toBeUndefined();
    expect(probing.environment).toEqual({ FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe' });
    const args = bwrapArgs(probing, '/opt/bin/ffprobe', ['-version'], '/repo');
    expect(after(args, '--uid')).toEqual(['993']);
    expect(args.join(' ')).toContain(`--perms 0700 --size ${512 * 1024 ** 2} --tmpfs /tmp`);
  });

  test('the signals task: this host’s pocketsphinx and its model where the image installs them, run by that path only', () => {
    const view = unitView(runtimeContracts().get(units.container('analysis', 'SignalsTaskDefinitionArn'))!, facts);
    expect(view.binds).toEqual(
      expect.arrayContaining([
        { source: '/home/me/sphinx/bin/pocketsphinx_continuous', path: '/usr/bin/pocketsphinx_continuous' },
        { source: '/home/me/sphinx/model/cmudict-en-us.dict', path: '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict' },
      ]),
    );
    expect(view.commands.get('/usr/bin/pocketsphinx_continuous')).toBe('/usr/bin/pocketsphinx_continuous');
    // Outside the hidden directories: shown nowhere but at the image's path.
    expect(view.masked).toContain('/home/me/sphinx/bin/pocketsphinx_continuous');
    // A function's image is no container's: it ships no aligner (the local host adds its own there, below).
    expect(
      unitView(lambdaContractOf(units.task('analysis', 'ExtractChunkSignalsFunction')), facts).commands.get('/usr/bin/pocketsphinx_continuous'),
    ).toBeUndefined();
  });

  test('a binary the local host adds (the local transcriber) is shown at its own path', () => {
    const view = unitView(lambdaContractOf(units.task('analysis', 'ExtractChunkSignalsFunction')), facts, ['/usr/bin/pocketsphinx_continuous']);
    expect(view.binds).toContainEqual({ source: '/usr/bin/pocketsphinx_continuous', path: '/usr/bin/pocketsphinx_continuous' });
  });
});
