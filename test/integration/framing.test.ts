/**
 * Auto framing through the local host (POST /v1/renders, the render task as a child process with
 * the real face detector), measured on the moving-subject fixture (test/helpers/moving-subject.ts):
 * a face moving on a known path over textured backgrounds that cut every 5 s. The rendered 9:16
 * clip is downloaded and the subject found in it: it must be in the picture on every frame, and
 * the crop centre within 10% of the output width of it on at least 95% of frames. Also: a render
 * of 20 moments of one analysis completes.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { clientFor, createAccount, createScanner, type Client } from '../helpers/api.js';
import { framingAccuracy, framingErrors, movingSubjectSource, subjectInOutput } from '../helpers/moving-subject.js';
import { momentsOf, runToCompletion, sleep, uploadFile, type Moment } from '../helpers/runs.js';
import type { Render } from '../../packages/client/src/schema.js';

let client: Client;
let workDir: string;

beforeAll(async () => {
  const account = await createAccount({ plan: 'creator', credits: 200 });
  client = clientFor(account.apiKey);
  workDir = await mkdtemp(join(tmpdir(), 'mss-framing-'));
});

/** Uploads a fixture of `scenes` x 5 s and finds its scenes: one 5 s moment per cut. */
async function sceneMoments(scenes: number): Promise<{ analysisId: string; moments: Moment[] }> {
  const upload = await uploadFile(client, await movingSubjectSource(scenes));
  const scanner = await createScanner(client, {
    name: `Cuts ${scenes}`,
    instructions: 'Find the scene changes',
    type: 'find_moments',
    min_seconds: 5,
    max_seconds: 5,
    max_observations: 50,
  });
  const { run } = await runToCompletion(client, scanner.scanner_id, { upload_id: upload.upload_id });
  return { analysisId: run.analysis_id, moments: (await momentsOf(client, run.analysis_id)).moments };
}

async function renderToEnd(body: object, timeoutMs: number): Promise<Render> {
  const accepted = await client.post<Render>('/v1/renders', body);
  expect(accepted.status, accepted.text).toBe(202);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.get<Render>(`/v1/renders/${accepted.body.render_id}`);
    expect(response.status, response.text).toBe(200);
    if (response.body.status === 'completed' || response.body.status === 'failed') return response.body;
    if (Date.now() > deadline) throw new Error(`render ${accepted.body.render_id} still ${response.body.status}`);
    await sleep(500);
  }
}

describe('auto framing', () => {
  test('9:16 auto keeps the moving subject in frame: crop centre within 10% of the output width on >= 95% of frames', { timeout: 300_000 }, async () => {
    const { analysisId, moments } = await sceneMoments(4);
    // The scene from 5 s to 10 s: the face sweeps from x=440 to x=150 and back to 200 (of 640), far past a centre crop's 219-421.
    const moment = moments.find((m) => Math.abs(m.start_ms - 5000) <= 200) ?? moments[0];
    if (!moment) throw new Error('no moment');
    const render = await renderToEnd(
      { analysis_id: analysisId, moment_ids: [moment.id], render: { output: { aspect_ratio: '9:16' }, framing: { mode: 'auto' } } },
      240_000,
    );
    const [asset] = render.assets;
    expect(render.status, JSON.stringify(render.assets)).toBe('completed');
    expect(asset).toMatchObject({ status: 'completed', width: 1080, height: 1920 });
    const path = join(workDir, 'auto.mp4');
    await writeFile(path, Buffer.from(await (await fetch(asset?.url ?? '')).arrayBuffer()));

    const sightings = await subjectInOutput(path, { width: 1080, height: 1920 });
    const accuracy = framingAccuracy(framingErrors(sightings, 1080));
    console.log(`auto framing on the moving-subject fixture (${moment.start_ms}-${moment.end_ms} ms): ${JSON.stringify(accuracy)}`);
    expect(sightings.length).toBeGreaterThanOrEqual(24);
    expect(
      sightings.filter((s) => s.x === null),
      'frames where the subject left the picture',
    ).toEqual([]);
    expect(accuracy.withinShare).toBeGreaterThanOrEqual(0.95);
  });

  test("a render of 20 moments completes, every asset the moment's length", { timeout: 600_000 }, async () => {
    // 21 scenes: cuts at 5, 10, ... 100 s, one 5 s moment each.
    const { analysisId, moments } = await sceneMoments(21);
    expect(moments.length).toBeGreaterThanOrEqual(20);
    const twenty = moments.slice(0, 20);
    // `original`: the whole frame, so the 20 tasks spend their time cutting and encoding (framing is measured above).
    const render = await renderToEnd(
      { analysis_id: analysisId, moment_ids: twenty.map((m) => m.id), render: { output: { aspect_ratio: 'original' } } },
      540_000,
    );
    expect(render.status).toBe('completed');
    expect(render.assets.map((a) => a.moment_id)).toEqual(twenty.map((m) => m.id));
    for (const [i, asset] of render.assets.entries()) {
      expect(asset, JSON.stringify(asset.error)).toMatchObject({ status: 'completed', width: 640, height: 360 });
      expect(Math.abs((asset.duration_ms ?? 0) - (twenty[i]?.duration_ms ?? 0))).toBeLessThanOrEqual(100);
    }
  });
});
