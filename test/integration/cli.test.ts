/**
 * The media-scanner CLI (packages/cli) as a subprocess against the shared local host, as
 * `npx media-scanner` runs it: JSON for scripts, tables for people, and the exit codes. One-off
 * analyses (`analyze`) read a generated video from a loopback media server that the test accounts
 * trust through the admin CLI (the shared host allows loopback targets).
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { adminOutput, childEnv, createAccount, repoRoot, runAdmin } from '../helpers/api.js';
import { fixture } from '../helpers/media-fixtures.js';
import { startMediaServer, type MediaServer } from '../helpers/media-server.js';
import { longVideo } from '../helpers/runs.js';

const execFileAsync = promisify(execFile);
const bin = join(repoRoot, 'packages', 'cli', 'bin', 'media-scanner.js');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let apiKey: string;
let server: MediaServer;
let video: string;
let dir: string;

async function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const environment = childEnv({ MEDIA_SCANNER_API_KEY: apiKey, MEDIA_SCANNER_BASE_URL: inject('baseUrl'), ...env });
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], { cwd: repoRoot, env: environment, timeout: 90_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as ExecFileException & { stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  ({ apiKey } = await createAccount({ plan: 'hobby', credits: 10 }));
  [server, video, dir] = await Promise.all([startMediaServer(), longVideo(30), mkdtemp(join(tmpdir(), 'mss-cli-'))]);
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh account's key, trusting the loopback media server's host. */
async function trustedKey(credits: number): Promise<string> {
  const account = await createAccount({ plan: 'creator', credits });
  adminOutput(await runAdmin(['accounts', 'trust-host', '127.0.0.1', '--account', account.accountId], inject('dataDir')));
  return account.apiKey;
}

interface Moments {
  count: number;
  moments: { start_ms: number; end_ms: number; score: number; title: string }[];
}

describe.concurrent('media-scanner', () => {
  test('scan: uploads, creates the scanner, runs it and prints run and observations as JSON', async () => {
    const result = await cli([
      '--json',
      '--poll-seconds',
      '0.2',
      'scan',
      await fixture('audio.mp3'),
      '--type',
      'summarizer',
      '--instructions',
      'Summarise the sound',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as {
      upload: { status: string };
      run: { status: string; scanner_id: string };
      scanner_id: string;
      observations: unknown[];
    };
    expect(output.upload.status).toBe('ready');
    expect(output.run).toMatchObject({ status: 'completed', scanner_id: output.scanner_id });
    expect(Array.isArray(output.observations)).toBe(true);
    // --json keeps stderr free of progress and notes.
    expect(result.stderr).toBe('');
  }, 90_000);

  test('prints tables for people', async () => {
    const created = await cli(['scanners', 'create', '--type', 'classifier', '--name', 'Kinds', '--instructions', 'What is it', '--labels', 'music,speech']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^scanner_id:\s+scn_[0-9a-f]{32}$/m);
    const listed = await cli(['scanners', 'list', '--limit', '5']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^SCANNER_ID\s+VERSION\s+TYPE\s+NAME\s+CREATED_AT$/);
    expect(listed.stdout).toContain('Kinds');
    const account = await cli(['account']);
    expect(account.stdout).toMatch(/^plan:\s+hobby$/m);
  });

  test('exits 3 with the API error code and request id', async () => {
    const result = await cli(['runs', 'get', 'run_unknown']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: not_found \(HTTP 404\): No such run\. \(request \S+\)$/m);
    const json = await cli(['--json', 'runs', 'get', 'run_unknown']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { status: 404, code: 'not_found', request_id: expect.any(String) as unknown } });
  });

  test('exits 2 on usage errors, before calling the API', async () => {
    expect((await cli(['runs', 'create', 'scn_x'])).code).toBe(2);
    expect((await cli(['scan', 'nothing.mp4'])).code).toBe(2);
    const noKey = await cli(['account'], { MEDIA_SCANNER_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('MEDIA_SCANNER_API_KEY');
  });

  test('analyses quote takes the options of create and sends the body create would: a setting the submission refuses, the quote refuses', async () => {
    const key = await trustedKey(5);
    const url = server.add(video);
    const quoted = await cli(['--json', 'analyses', 'quote', url, '--window', '0:25', '--what', 'a story', '--types', 'story', '--max-moments', '3'], {
      MEDIA_SCANNER_API_KEY: key,
    });
    expect(quoted.code, quoted.stderr).toBe(0);
    expect(JSON.parse(quoted.stdout)).toMatchObject({ object: 'analysis_quote', billed_seconds: 25, credits: 1, balance_credits: 5, affordable: true });
    const refused = await cli(['analyses', 'quote', url, '--window', '0:25', '--profile', 'gameplay', '--tight'], { MEDIA_SCANNER_API_KEY: key });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^error: validation_failed \(HTTP 400\): .*\[speech_cleanup\]/m);
  });

  test('analyze: preflight, quote, submit and --wait print the analysis and its ranked moments as JSON', async () => {
    const key = await trustedKey(10);
    const url = server.add(video);
    const args = [
      '--json',
      '--poll-seconds',
      '0.2',
      'analyze',
      url,
      '--window',
      '0:30',
      '--what',
      'scene changes',
      '--types',
      'funny,reaction',
      '--max-moments',
      '3',
      '--wait',
    ];
    const result = await cli(args, { MEDIA_SCANNER_API_KEY: key });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const output = JSON.parse(result.stdout) as {
      preflight: Record<string, unknown>;
      quote: Record<string, unknown>;
      analysis: Record<string, unknown>;
      moments: Moments;
    };
    expect(output.preflight).toMatchObject({ object: 'source_preflight', provider: { kind: 'trusted_host', host: '127.0.0.1' } });
    expect(output.quote).toMatchObject({ object: 'analysis_quote', billed_seconds: 30, credits: 1, balance_credits: 10, affordable: true });
    expect(output.analysis).toMatchObject({
      status: 'completed',
      window: { analysis_start_seconds: 0, analysis_end_seconds: 30 },
      what_to_find: 'scene changes',
      chat_moment_types: ['funny', 'reaction'],
      max_moments: 3,
      billing: { credits: 1, state: 'charged', proof: false },
    });
    // Funny or reaction moments in test patterns and a tone: zero is a valid answer (the table test sees some).
    expect(output.moments.count).toBe(output.moments.moments.length);
    expect(output.moments.count).toBeLessThanOrEqual(3);
    expect(output.moments.moments.map((m) => m.score)).toEqual([...output.moments.moments.map((m) => m.score)].sort((a, b) => b - a));
    // The source URL, with its unguessable path, is not in what the API answered.
    expect(result.stdout).not.toContain(new URL(url).pathname);
  }, 150_000);

  test('analyze: refuses an unaffordable quote before submitting; with --proof --tight prints the quote and a moments table', async () => {
    const key = await trustedKey(0);
    const url = server.add(video);
    const broke = await cli(['analyze', url, '--window', '0:20'], { MEDIA_SCANNER_API_KEY: key });
    expect(broke.code, broke.stderr).toBe(3);
    expect(broke.stderr).toContain('Quote: 1 credit(s) for 20s; balance 0: not affordable.');
    expect(broke.stderr).toMatch(/^error: insufficient_credits \(HTTP 402\): The quote is 1 credit\(s\) and the balance 0: nothing was submitted\.$/m);
    const none = await cli(['--json', 'analyses', 'list'], { MEDIA_SCANNER_API_KEY: key });
    expect(JSON.parse(none.stdout)).toMatchObject({ data: [] });

    const result = await cli(['--poll-seconds', '0.2', 'analyze', url, '--window', '0:20', '--proof', '--tight', '--wait'], { MEDIA_SCANNER_API_KEY: key });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Quote: 0 credit(s) for 20s (proof allowance); balance 0: affordable.');
    expect(result.stderr).toMatch(/^Analysis ana_[0-9a-f]{32}: 0 credit\(s\) reserved\.$/m);
    expect(result.stdout).toMatch(/^status:\s+completed$/m);
    expect(result.stdout).toMatch(/^credits:\s+0 \(charged, proof\)$/m);
    expect(result.stdout).toMatch(/^RANK\s+ID\s+START\s+END\s+SCORE\s+EVENT_TYPE\s+EDIT\s+TITLE$/m);
    expect(result.stdout).toMatch(/^1\s+mom_[0-9a-f]{32}\s+\d+\.\ds/m);
    // Usage errors before any request.
    expect((await cli(['analyze', url, '--window', '0-20'], { MEDIA_SCANNER_API_KEY: key })).code).toBe(2);
    expect((await cli(['analyze', url, '--window', '0:20', '--types', 'funny,jokes'], { MEDIA_SCANNER_API_KEY: key })).code).toBe(2);
  }, 150_000);

  test('batch: checks the CSV, submits under the file hash, follows the counters; the same file again follows the same batch', async () => {
    const uploaded = await cli(['--json', 'upload', await fixture('audio.mp3')]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const uploadId = (JSON.parse(uploaded.stdout) as { upload_id: string }).upload_id;
    const scanner = await cli(['--json', 'scanners', 'create', '--type', 'summarizer', '--name', 'Batch gist', '--instructions', 'Summarise the sound']);
    const scannerId = (JSON.parse(scanner.stdout) as { scanner_id: string }).scanner_id;
    const file = join(dir, 'items.csv');
    await writeFile(file, `client_id,scanner_id,upload_id,metadata_json\nep-1,${scannerId},${uploadId},"{""episode"":1}"\nep-2,${scannerId},${uploadId},\n`);

    const first = await cli(['--json', '--poll-seconds', '0.2', 'batch', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    const batch = JSON.parse(first.stdout) as {
      batch_id: string;
      status: string;
      counters: Record<string, number>;
      items: { client_id: string; status: string; run_id: string }[];
    };
    expect(batch).toMatchObject({ status: 'completed', counters: { total: 2, completed: 2, failed: 0, queued: 0, processing: 0, canceled: 0 } });
    expect(batch.items.map((item) => [item.client_id, item.status])).toEqual([
      ['ep-1', 'completed'],
      ['ep-2', 'completed'],
    ]);

    const again = await cli(['--poll-seconds', '0.2', 'batch', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${file} was already submitted as ${batch.batch_id} (Idempotency-Key batch-csv-sha256-`);
    // Not a terminal: plain counter lines, no escape codes.
    expect(again.stderr).toMatch(/^completed 2\/2 settled: 2 completed, 0 failed, 0 canceled; 0 running, 0 queued$/m);
    expect(again.stderr).not.toContain('\x1b');
    expect(again.stdout).toMatch(new RegExp(`^batch_id:\\s+${batch.batch_id}$`, 'm'));
    const runs = await cli(['--json', 'batches', 'list']);
    expect((JSON.parse(runs.stdout) as { data: { batch_id: string }[] }).data.filter((b) => b.batch_id === batch.batch_id)).toHaveLength(1);

    const duplicate = join(dir, 'duplicate.csv');
    await writeFile(duplicate, `client_id,scanner_id,upload_id\nep-1,${scannerId},${uploadId}\nep-1,${scannerId},${uploadId}\n`);
    const refused = await cli(['batch', duplicate]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('item 2: client_id "ep-1" is also item 1');
  }, 120_000);

  test('timeline: writes the run as SVG and as HTML with a legend', async () => {
    const scanned = await cli([
      '--json',
      '--poll-seconds',
      '0.2',
      'scan',
      video,
      '--type',
      'find_moments',
      '--instructions',
      'Find the scene changes',
      '--min-seconds',
      '5',
      '--max-seconds',
      '10',
    ]);
    expect(scanned.code, scanned.stderr).toBe(0);
    const { run, observations } = JSON.parse(scanned.stdout) as { run: { run_id: string }; observations: { title: string; value: { event_type: string } }[] };
    expect(observations.length).toBeGreaterThan(0);

    const svgFile = join(dir, `${run.run_id}.svg`);
    const svg = await cli(['timeline', run.run_id, '--out', svgFile]);
    expect(svg.code, svg.stderr).toBe(0);
    expect(svg.stdout).toMatch(new RegExp(`^Wrote ${svgFile}: ${observations.length} observation\\(s\\) in \\d+ lane\\(s\\) over 0:30\\.$`, 'm'));
    const drawn = await readFile(svgFile, 'utf8');
    expect(drawn.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(drawn.match(/<rect class="observation"/g)).toHaveLength(observations.length);
    for (const type of new Set(observations.map((o) => o.value.event_type))) expect(drawn).toContain(`data-lane="${type}"`);
    expect(drawn).toContain('0:30</text>');

    const htmlFile = join(dir, `${run.run_id}.html`);
    const html = await cli(['--json', 'timeline', run.run_id, '--out', htmlFile]);
    expect(html.code, html.stderr).toBe(0);
    expect(JSON.parse(html.stdout)).toMatchObject({
      out: htmlFile,
      run_id: run.run_id,
      duration_ms: expect.any(Number) as unknown,
      observations: observations.length,
    });
    const page = await readFile(htmlFile, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<ul class="legend">');
    expect(page).toContain(drawn.trimEnd());

    expect((await cli(['timeline', run.run_id, '--out', join(dir, 'x.png')])).code).toBe(2);
    expect((await cli(['timeline', 'run_unknown', '--out', join(dir, 'x.svg')])).code).toBe(3);
  }, 120_000);

  test('exits 4 when the work fails: bytes that are not media', async () => {
    const result = await cli(['upload', await fixture('random.bin'), '--content-type', 'video/mp4']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: Upload upl_[0-9a-f]{32} is failed: \w+/m);
  });
});
