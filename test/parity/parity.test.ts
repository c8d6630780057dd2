/**
 * Run-time parity (issue 24): on a local host whose units all run inside their sandboxes, the
 * paths that reach a container task or a disk-writing function behave as on AWS. Any unit that
 * steps outside its contract (a write outside its writable paths, a binary it does not ship)
 * fails its path here, and its error (EROFS, ENOENT, EACCES, or bubblewrap's own) in the host's
 * output fails the suite. On CI (CI=true) a machine without bubblewrap fails it at once.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bubblewrapWorks } from '../../functions/local/sandbox/sandbox.js';
import { units } from '../../functions/runtime/contracts.js';
import type { Client } from '../helpers/api.js';
import { ffmpeg } from '../helpers/ground-truth-media.js';
import { hostsOnOwnData } from '../helpers/host-process.js';
import { startMediaServer, type MediaServer } from '../helpers/media-server.js';
import { analyseOnce, renderFirstMoment, trustedClient } from '../helpers/one-off.js';
import { fakeYtDlpPath } from '../helpers/processes.js';
import { probeInUnit } from '../helpers/sandbox.js';

const sandboxed = bubblewrapWorks();

test('bubblewrap runs here (required on CI)', () => {
  if (process.env.CI === 'true') expect(sandboxed, 'CI must install bubblewrap (.ci/run)').toBe(true);
});

describe.runIf(sandboxed).concurrent('every unit sandboxed', () => {
  const hosts = hostsOnOwnData('mss-parity-');
  let workDir: string;
  let server: MediaServer;
  let client: Client;
  let output: (() => { stdout: string; stderr: string }) | undefined;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'mss-parity-'));
    server = await startMediaServer();
    const host = await hosts.start(
      {
        // npm start's default: in the signals function it loads from node_modules, in the signals
        // container from the image's speech folder (SPEECH_MODEL_DIR), which the sandbox shows it.
        TRANSCRIBER: 'moonshine',
        // Chunks of 15 s, each in a signals container: a 45 s source is a "long" one here.
        CHUNK_SECONDS: '15',
        SIGNALS_RUNNER: 'auto',
        LOCAL_ALLOW_LOOPBACK_TARGETS: '1',
        YT_DLP_PATH: fakeYtDlpPath,
      },
      240_000,
    );
    expect(host.output().stdout).toContain('Sandbox: every unit runs inside its AWS run-time contract');
    output = host.output;
    client = await trustedClient(host.baseUrl, hosts.dataDir(), 1000);
  });

  afterAll(async () => {
    await server.close();
    await hosts.cleanUp();
    await rm(workDir, { recursive: true, force: true });
    // What a unit meets when it steps outside its contract, wherever in the host it was logged.
    const { stdout, stderr } = output?.() ?? { stdout: '', stderr: '' };
    // The host's errors, which say which unit failed and why.
    for (const line of stdout.split('\n').filter((l) => l.includes('"level":"ERROR"'))) console.error(line);
    if (stderr) console.error(stderr);
    expect(`${stdout}\n${stderr}`).not.toMatch(/EROFS|ENOENT|EACCES|bwrap:/);
  }, 60_000);

  /** `seconds` of 160x120 test pattern with a cut every 5 s and `audio` (lavfi or a file), faststart MP4. */
  async function clip(name: string, seconds: number, audio: string[] = ['-f', 'lavfi', '-i', `sine=f=440:d=${seconds}`]): Promise<string> {
    const path = join(workDir, name);
    await ffmpeg([
      ...['-f', 'lavfi', '-i', `testsrc=s=160x120:r=25:d=${seconds}`, ...audio],
      ...[
        '-vf',
        "hue=h='floor(t/5)*90'",
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-t',
        String(seconds),
        '-movflags',
        '+faststart',
        path,
      ],
    ]);
    return path;
  }

  /** A clip whose audio is espeak-ng saying two sentences about the weather `repeats` times (about 6.5 s each time). */
  async function spokenClip(name: string, seconds: number, repeats: number): Promise<string> {
    const speech = join(workDir, `${name}.wav`);
    const sentences = 'Welcome back to the show. Today we talk about the weather tomorrow morning. '.repeat(repeats);
    expect(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '130', '-w', speech, sentences]).status, 'espeak-ng (apt-get install espeak-ng)').toBe(0);
    return clip(`${name}.mp4`, seconds, ['-i', speech]);
  }

  test('a render with captions and auto framing: speech transcribed in the signals task, burned in by the render container', async () => {
    const source = await spokenClip('speech', 20, 3);
    const analysis = await analyseOnce(client, server.add(source), 20);
    expect(analysis.status, JSON.stringify(analysis.error)).toBe('completed');
    const render = await renderFirstMoment(client, analysis.analysis_id, {
      output: { aspect_ratio: '9:16' },
      captions: { enabled: true, preset_id: 'bold_pop' },
      framing: { mode: 'auto' },
    });
    expect(
      render.assets.map((a) => [a.status, a.captions]),
      JSON.stringify(render.assets),
    ).toEqual([['completed', true]]);
  });

  test('a one-off source over 256 MiB of unknown length (chunked transfer) is acquired by the container', async () => {
    // A 10 s clip and a 260 MiB `free` box after it: valid MP4, cheap to make, large to move.
    const path = await clip('large.mp4', 10);
    const padding = 260 * 1024 ** 2;
    const header = Buffer.alloc(8);
    header.writeUInt32BE(padding + 8);
    header.write('free', 4, 'latin1');
    const zeros = Buffer.alloc(1024 ** 2);
    await pipeline(
      (function* () {
        yield header;
        for (let i = 0; i < padding / zeros.length; i++) yield zeros;
      })(),
      createWriteStream(path, { flags: 'a' }),
    );
    const analysis = await analyseOnce(client, server.add(path, 'large.mp4', { length: false }), 10);
    expect(analysis.status, JSON.stringify(analysis.error)).toBe('completed');
    // The acquisition container's own report of the copy it stored: the whole source.
    const acquired = (output?.().stdout ?? '')
      .split('\n')
      .filter((line) => line.includes('"Container task done"'))
      .map((line) => (JSON.parse(line) as { result?: { sizeBytes?: number } }).result?.sizeBytes ?? 0);
    expect(Math.max(...acquired)).toBeGreaterThan(padding);
  });

  test('a provider page: resolved by the provider-resolver function in its view (Python, the yt-dlp stand-in at the layer path), acquired by the container', async () => {
    const page = 'https://www.youtube.com/watch?v=clip';
    const preflight = await client.post('/v1/sources/preflight', { source_url: page });
    expect(preflight.status, JSON.stringify(preflight.body)).toBe(200);
    expect(preflight.body).toMatchObject({ provider: { id: 'youtube' }, media_kind: 'video' });
    expect(await probeInUnit(units.container('analysis', 'AcquireSourceTaskDefinitionArn'), ['yt-dlp', page])).toMatchObject({
      bytes: expect.any(Number) as unknown,
    });
  });

  test('a chunked long source: each chunk in a signals container, its speech heard there', async () => {
    const analysis = await analyseOnce(client, server.add(await spokenClip('long', 45, 6)), 45, undefined, {
      what_to_find: 'Find where they talk about the weather',
    });
    expect(analysis.status, JSON.stringify(analysis.error)).toBe('completed');
    const containers = (output?.().stdout ?? '').split('\n').filter((line) => line.includes('"Container task done"') && line.includes(analysis.analysis_id));
    expect(containers.length).toBeGreaterThanOrEqual(3);
    const { body } = await client.get<{ moments: { transcript_excerpt: string }[] }>(`/v1/analyses/${analysis.analysis_id}/moments`);
    expect(body.moments.map((m) => m.transcript_excerpt).join(' ')).toMatch(/weather/i);
  });
});
