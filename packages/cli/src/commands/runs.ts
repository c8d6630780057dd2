import { Option } from 'commander';
import { unwrap, type MediaScannerClient, type Observation, type Run } from '../../../client/src/index.js';
import { FailedWork, keyValues, seconds, table, type Printer } from '../output.js';
import { ended, withBar, workDetail } from '../progress.js';
import { collect, metadataOf, windowOf } from './args.js';
import { intervalOf, type Cli, type Globals } from './cli.js';
import { scannerTypeOption } from './scanners.js';

const valueText = (observation: Observation): string => {
  const { value } = observation;
  if (typeof value === 'object' && value !== null) return 'event_type' in value ? String(value.event_type) : JSON.stringify(value);
  return String(value);
};

/** A completed run with zero observations is a real answer (SPEC): say what it means. */
export const noAnswer = 'No observations: the recording cannot support an answer to these instructions.';

export const observationsTable = (observations: readonly Observation[], empty = 'No observations.') =>
  observations.length
    ? table(
        observations.map((o) => ({
          start: seconds(o.evidence.start_ms),
          end: seconds(o.evidence.end_ms),
          score: o.relevance_score.toFixed(2),
          value: valueText(o),
          title: o.title,
        })),
        ['start', 'end', 'score', 'value', 'title'],
      )
    : empty;

export const runText = (run: Run) =>
  keyValues({
    run_id: run.run_id,
    status: run.status,
    scanner: `${run.scanner_id} v${run.scanner_version}`,
    upload: run.upload_id,
    media_kind: run.media_kind,
    credits: `${run.billing.credits} (${run.billing.state})`,
    observations: run.observation_count,
    error: run.error ? `${run.error.code}: ${run.error.message}` : null,
    analysis_id: run.analysis_id,
  });

/** Every page of a list, following next_cursor. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    items.push(...answer.data);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

/** A completed run's observations, every page, in rank order. */
export const observationsOf = (api: MediaScannerClient, runId: string): Promise<Observation[]> =>
  allPages((cursor) =>
    unwrap(api.api.GET('/v1/runs/{run_id}/observations', { params: { path: { run_id: runId }, query: { limit: '100', ...(cursor ? { cursor } : {}) } } })),
  );

export const waitRun = (api: MediaScannerClient, out: Printer, globals: Globals, runId: string): Promise<Run> =>
  withBar('run', !out.json, (bar) =>
    api.waitForRun(runId, { intervalMs: intervalOf(globals), onProgress: (progress) => bar.update(progress.fraction, workDetail(progress)) }).then(ended(bar)),
  );

export const failedRun = (run: Run) => new FailedWork(`Run ${run.run_id} failed: ${run.error?.code ?? ''} ${run.error?.message ?? ''}`.trim(), run);

/** `runs create|get|wait|observations`: scanner runs. */
export function runsCommands(cli: Cli): void {
  const runs = cli.root.command('runs').description('scanner runs');
  runs
    .command('create <scanner_id>')
    .requiredOption('--upload <upload_id>', 'a ready upload')
    .option('--window <start:end>', 'video find_moments only: seconds to analyse')
    .option('--metadata <key=value>', 'copied onto every observation; repeat for more keys', collect)
    .option('--wait', 'wait until it ends', false)
    .action(
      cli.run(async ({ api, out, globals }, scannerId: string, options: { upload: string; window?: string; metadata?: string[]; wait: boolean }) => {
        const metadata = metadataOf(options.metadata);
        let created = await unwrap(
          api.api.POST('/v1/scanners/{scanner_id}/runs', {
            params: { path: { scanner_id: scannerId } },
            body: { upload_id: options.upload, ...windowOf(options.window), ...(metadata ? { metadata } : {}) },
          }),
        );
        if (options.wait) created = await waitRun(api, out, globals, created.run_id);
        out.result(created, () => runText(created));
        if (created.status === 'failed') throw failedRun(created);
      }),
    );
  cli.byId(runs, 'get <run_id>', 'a run', ({ api }, id) => unwrap(api.api.GET('/v1/runs/{run_id}', { params: { path: { run_id: id } } })), runText);
  cli.byId(
    runs,
    'wait <run_id>',
    'poll until completed or failed, with its progress',
    ({ api, out, globals }, id) => waitRun(api, out, globals, id),
    runText,
    (done) => (done.status === 'failed' ? failedRun(done) : undefined),
  );
  cli.byId(
    runs,
    'observations <run_id>',
    "a completed run's observations, in rank order",
    ({ api }, id) => observationsOf(api, id),
    (observations) => observationsTable(observations, noAnswer),
  );
}

/** `observations`: observations across runs, filtered. */
export function observationsCommand(cli: Cli): void {
  cli.root
    .command('observations')
    .description('observations across runs')
    .option('--scanner <scanner_id>')
    .option('--run <run_id>')
    .addOption(scannerTypeOption())
    .addOption(new Option('--media-kind <kind>').choices(['video', 'audio']))
    .option('--limit <n>', 'page size', '20')
    .action(
      cli.run(async ({ api, out }, options: { scanner?: string; run?: string; type?: Observation['type']; mediaKind?: 'video' | 'audio'; limit: string }) => {
        const query = {
          limit: options.limit,
          ...(options.scanner ? { scanner_id: options.scanner } : {}),
          ...(options.run ? { run_id: options.run } : {}),
          ...(options.type ? { type: options.type } : {}),
          ...(options.mediaKind ? { media_kind: options.mediaKind } : {}),
        };
        const page = await unwrap(api.api.GET('/v1/observations', { params: { query } }));
        out.result(page, () => observationsTable(page.data));
      }),
    );
}
