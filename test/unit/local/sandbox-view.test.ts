/**
 * The sandbox's view of a unit (functions/local/sandbox/view.ts) is its run-time contract laid
 * over this machine: these check the bubblewrap command line it makes from a contract, without
 * running bubblewrap (test/integration/sandbox.test.ts and test/parity run it).
 */
import fc from 'fast-check';
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

/**
 * What a unit sees, replayed from bubblewrap's arguments as bubblewrap applies them: each mount
 * hides whatever earlier mounts lie under its path, and `--remount-ro` needs a mount at its path
 * (bubblewrap's "Can't remount readonly" otherwise, the failure of a checkout under /tmp).
 */
function replay(args: string[]) {
  type Mount = { path: string; source?: string };
  let mounts: Mount[] = [];
  const failures: string[] = [];
  const mount = (path: string, source?: string) => {
    mounts = mounts.filter((m) => !m.path.startsWith(`${path}/`) && m.path !== path);
    mounts.push({ path, ...(source === undefined ? {} : { source }) });
  };
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const arg = args[i]!;
    const [first = '', second = ''] = args.slice(i + 1, i + 3);
    if (arg === '--ro-bind' || arg === '--bind') {
      mount(second, first);
      i += 2;
    } else if (arg === '--tmpfs') {
      mount(first);
      i += 1;
    } else if (arg === '--remount-ro') {
      if (!mounts.some((m) => m.path === first)) failures.push(`Can't remount readonly on ${first}`);
      i += 1;
    }
  }
  /** The host file a path shows (`/dev/null` for a masked one), or undefined inside an empty tmpfs. */
  const seen = (path: string): string | undefined => {
    const innermost = mounts.filter((m) => m.path === '/' || path === m.path || path.startsWith(`${m.path}/`)).sort((a, b) => b.path.length - a.path.length)[0];
    if (innermost?.source === undefined) return undefined;
    return innermost.path === '/' ? path : innermost.source + path.slice(innermost.path.length);
  };
  return { failures, seen, mounted: (path: string) => args.includes(path) };
}

describe('a checkout wherever it lives', () => {
  const checkout = '/tmp/my checkout';
  const under = (root: string): HostFacts => ({
    ...facts,
    binaries: { ffmpeg: `${root}/node_modules/ffmpeg`, ffprobe: `${root}/node_modules/ffprobe` },
    files: { ...facts.files, fonts: [{ name: 'DejaVuSans.ttf', source: `${root}/node_modules/dejavu/DejaVuSans.ttf` }] },
    // The PATH npm gives a script: the checkout's .bin first; a PATH entry elsewhere under /tmp too.
    executableDirs: ['/usr/bin', '/opt', `${root}/node_modules/.bin`, '/tmp/elsewhere/bin'],
    node: `${root}/node_modules/node/bin/node`,
    addedWritable: [`${root}/test-results/aws-calls.ndjson`],
    inPlace: [root],
  });

  test('under /tmp, with a space in its path: the unit sees its code and scratch, and bubblewrap can make every mount', () => {
    const view = unitView(acquisition(realDockerfile), under(checkout));
    const args = bwrapArgs(view, `${checkout}/node_modules/node/bin/node`, [`${checkout}/node_modules/.cache/bundle.mjs`], checkout);
    const { failures, seen, mounted } = replay(args);
    expect(failures).toEqual([]);
    // The checkout, shown again over the unit's /tmp (read-only), and its bundle and node.
    expect(view.shown).toEqual([checkout]);
    expect(seen(`${checkout}/node_modules/.cache/bundle.mjs`)).toBe(`${checkout}/node_modules/.cache/bundle.mjs`);
    expect(seen(`${checkout}/node_modules/node/bin/node`)).toBe(`${checkout}/node_modules/node/bin/node`);
    // Its scratch is the unit's own tmpfs; the .bin folder is hidden again and the npm binaries run only by their AWS paths.
    expect(seen('/tmp/scratch/source.mp4')).toBeUndefined();
    expect(seen(`${checkout}/node_modules/.bin/tsc`)).toBeUndefined();
    expect(seen(`${checkout}/node_modules/ffmpeg`)).toBe('/dev/null');
    expect(seen('/opt/bin/ffmpeg')).toBe(`${checkout}/node_modules/ffmpeg`);
    expect(seen(`${checkout}/test-results/aws-calls.ndjson`)).toBe(`${checkout}/test-results/aws-calls.ndjson`);
    // A PATH entry under the unit's /tmp is gone with it: no mount of its own.
    expect(mounted('/tmp/elsewhere/bin')).toBe(false);
    // Paths go to bubblewrap as they are, one argument each: no shell splits them at the space.
    expect(args.slice(-5)).toEqual(['--chdir', checkout, '--', `${checkout}/node_modules/node/bin/node`, `${checkout}/node_modules/.cache/bundle.mjs`]);
  });

  test('packages linked in from another folder under /tmp are shown too', () => {
    const view = unitView(acquisition(realDockerfile), { ...under('/srv/co'), inPlace: ['/srv/co', '/tmp/shared/node_modules'] });
    const { failures, seen } = replay(bwrapArgs(view, 'node', [], '/srv/co'));
    expect(failures).toEqual([]);
    expect(view.shown).toEqual(['/tmp/shared/node_modules']);
    expect(seen('/tmp/shared/node_modules/zod/index.js')).toBe('/tmp/shared/node_modules/zod/index.js');
    expect(seen('/srv/co/functions/config.ts')).toBe('/srv/co/functions/config.ts');
  });

  test('inside a folder of executables (/opt/app): the folder is hidden, the checkout shown in it, the image binaries beside it', () => {
    const view = unitView(lambdaContractOf(units.route('POST /v1/sources/preflight')), under('/opt/app'));
    const { failures, seen } = replay(bwrapArgs(view, '/opt/bin/ffprobe', [], '/opt/app'));
    expect(failures).toEqual([]);
    expect(seen('/opt/app/functions/config.ts')).toBe('/opt/app/functions/config.ts');
    expect(seen('/opt/bin/ffprobe')).toBe('/opt/app/node_modules/ffprobe');
    expect(seen('/opt/other-tool/bin/tool')).toBeUndefined();
  });

  test('for every unit and wherever the checkout, PATH and scratch are, every mount can be made and the checkout stays readable', () => {
    const contracts = [...runtimeContracts().values()];
    const roots = ['/tmp/a', '/tmp/with space/co', '/opt/app', '/srv/co', '/usr/local/src/co', '/home/me/co'];
    const pathEntries = ['/usr/bin', '/usr/local/bin', '/opt', '/tmp/bin', '/home/me/.local/bin', '/srv/tools/bin'];
    fc.assert(
      fc.property(fc.constantFrom(...contracts), fc.constantFrom(...roots), fc.subarray(pathEntries), (contract, root, path) => {
        const facts = under(root);
        // As sandbox.ts gathers them: the checkout's .bin always, nested folders once.
        const dirs = [...path, `${root}/node_modules/.bin`];
        const executableDirs = dirs.filter((dir) => !dirs.some((other) => dir.startsWith(`${other}/`)));
        const view = unitView(contract, { ...facts, executableDirs });
        const { failures, seen } = replay(bwrapArgs(view, facts.node, [], root));
        expect(failures).toEqual([]);
        expect(seen(`${root}/functions/config.ts`)).toBe(`${root}/functions/config.ts`);
        expect(seen(facts.node)).toBe(facts.node);
        for (const [binary, awsPath] of Object.entries(contract.binaries)) {
          const source = facts.binaries[binary as keyof typeof facts.binaries];
          if (source) expect(seen(awsPath), awsPath).toBe(source);
        }
        for (const dir of executableDirs) expect(seen(`${dir}/some-tool`), dir).not.toBe(`${dir}/some-tool`);
      }),
      { numRuns: 200 },
    );
  });
});
