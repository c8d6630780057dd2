/**
 * media-scanner: the Media Scanner Service from the command line, on the typed client
 * (packages/client). Configured by MEDIA_SCANNER_API_KEY and MEDIA_SCANNER_BASE_URL (default the
 * local host). `--json` prints the API's records for scripts; otherwise tables for people.
 * Exit codes: 0 ok, 1 unexpected, 2 usage, 3 API error (its code on stderr), 4 the work failed,
 * 5 still running when the wait gave up.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  createMediaScannerClient,
  MediaScannerError,
  terminalBatchStatuses,
  unwrap,
  type Analysis,
  type MediaScannerClient,
  type MomentList,
  type Observation,
  type paths,
  type Run,
  type ScannerBatch,
  type Upload,
  type UploadContentType,
} from '../../client/src/index.js';
import { bytes, exitCodes, FailedWork, keyValues, printer, reportError, seconds, table, UsageError, type Printer } from './output.js';
import { batchIdempotencyKey, batchItemsFromCsv, type BatchItemInput, type Metadata } from './batch-csv.js';
import { counterDisplay, uploadDetail, withBar, workDetail, type Bar } from './progress.js';
import { lanesOf, mmss, renderTimeline, renderTimelineHtml } from './timeline.js';

interface Globals {
  json: boolean;
  pollSeconds: number;
}

// ---- Argument parsing ----------------------------------------------------------------------

const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} is a whole number, not "${value}".`);
  return Number(value);
};

/** `--window 30:90`: the analysis window in seconds. */
function windowOf(value: string | undefined): { analysis_start_seconds: number; analysis_end_seconds: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(value);
  if (!match) throw new UsageError(`--window is START:END in seconds (e.g. 0:120), not "${value}".`);
  return { analysis_start_seconds: Number(match[1]), analysis_end_seconds: Number(match[2]) };
}

/** `--metadata episode=42 --metadata draft=true`: numbers, booleans and null as JSON would read them. */
function metadataOf(pairs: readonly string[] | undefined): Metadata | undefined {
  if (!pairs?.length) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--metadata is KEY=VALUE, not "${pair}".`);
      const raw = pair.slice(at + 1);
      const value = /^(-?\d+(\.\d+)?|true|false|null)$/.test(raw) ? (JSON.parse(raw) as number | boolean | null) : raw;
      return [pair.slice(0, at), value];
    }),
  );
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

// ---- Printing the resources ----------------------------------------------------------------

const valueText = (observation: Observation): string => {
  const { value } = observation;
  if (typeof value === 'object' && value !== null) return 'event_type' in value ? String(value.event_type) : JSON.stringify(value);
  return String(value);
};

/** A completed run with zero observations is a real answer (SPEC): say what it means. */
const noAnswer = 'No observations: the recording cannot support an answer to these instructions.';

const observationsTable = (observations: readonly Observation[], empty = 'No observations.') =>
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

const runText = (run: Run) =>
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

const uploadText = (upload: Upload) =>
  keyValues({
    upload_id: upload.upload_id,
    status: upload.status,
    media_kind: upload.media_kind,
    filename: upload.filename,
    size: bytes(upload.size_bytes),
    duration: seconds(upload.duration_ms),
    error: upload.error ? `${upload.error.code}: ${upload.error.message}` : null,
  });

const analysisText = (analysis: Analysis) =>
  keyValues({
    analysis_id: analysis.analysis_id,
    kind: analysis.kind,
    status: analysis.status,
    source: analysis.source?.kind === 'url' ? `${analysis.source.host} (${seconds(analysis.source.duration_ms)})` : (analysis.source?.upload_id ?? null),
    window: analysis.window ? `${analysis.window.analysis_start_seconds}s-${analysis.window.analysis_end_seconds}s` : null,
    credits: `${analysis.billing.credits} (${analysis.billing.state}${analysis.billing.proof ? ', proof' : ''})`,
    error: analysis.error ? `${analysis.error.code}: ${analysis.error.message}` : null,
  });

const batchText = (batch: ScannerBatch) =>
  `${keyValues({ batch_id: batch.batch_id, status: batch.status, ...batch.counters })}\n\n${table(
    batch.items.map((item) => ({ ...item, error: item.error?.code })),
    ['client_id', 'status', 'scanner_id', 'upload_id', 'run_id', 'error'],
  )}`;

/** Ranked moments, best first; `edit` says whether --tight cut them into subclips. */
const momentsTable = (moments: MomentList): string =>
  moments.count
    ? table(
        moments.moments.map((m, i) => ({
          ...m,
          rank: i + 1,
          start: seconds(m.start_ms),
          end: seconds(m.end_ms),
          score: m.score.toFixed(2),
          edit: m.edit.mode === 'subclips' ? `${m.edit.subclips.length} subclips` : m.edit.mode,
        })),
        ['rank', 'id', 'start', 'end', 'score', 'event_type', 'edit', 'title'],
      )
    : 'No moments.';

// ---- One-off analyses ----------------------------------------------------------------------

type AnalysisBody = NonNullable<paths['/v1/analyses']['post']['requestBody']>['content']['application/json'];
type ChatMomentType = NonNullable<AnalysisBody['chat_moment_types']>[number];
const chatMomentTypes: readonly ChatMomentType[] = ['auto', 'q_and_a', 'story', 'opinion', 'reaction', 'funny', 'advice'];

interface AnalysisOptions {
  window: string;
  proof: boolean;
  what?: string;
  profile?: 'conversation' | 'gameplay';
  types?: string[];
  tight: boolean;
  maxMoments?: number;
  wait: boolean;
}

/** What one-off analyses take beyond the window (`analyses create` and `analyze`). */
const analysisOptions = (command: Command) =>
  command
    .option('--what <text>', 'what to find, up to 600 characters')
    .addOption(new Option('--profile <profile>').choices(['conversation', 'gameplay']))
    .option('--types <a,b,...>', `chat moment types: ${chatMomentTypes.join(', ')}`, list)
    .option('--tight', 'speech cleanup "tight": cut the pauses inside each moment into subclips', false)
    .option('--max-moments <n>', '1 to 50', integer('--max-moments'));

/** The body of POST /v1/analyses, checked before anything is sent. */
function analysisBody(sourceUrl: string, options: AnalysisOptions): AnalysisBody {
  const window = windowOf(options.window);
  if (!window) throw new UsageError('--window is required');
  const unknown = options.types?.filter((type) => !chatMomentTypes.includes(type as ChatMomentType)) ?? [];
  if (unknown.length) throw new UsageError(`--types takes ${chatMomentTypes.join(', ')}; not ${unknown.join(', ')}.`);
  return {
    source_url: sourceUrl,
    ...window,
    use_proof_allowance: options.proof,
    ...(options.what ? { what_to_find: options.what } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.types?.length ? { chat_moment_types: options.types as ChatMomentType[] } : {}),
    ...(options.tight ? { speech_cleanup: 'tight' as const } : {}),
    ...(options.maxMoments !== undefined ? { max_moments: options.maxMoments } : {}),
  };
}

// ---- The program ---------------------------------------------------------------------------

function client(): MediaScannerClient {
  const apiKey = process.env.MEDIA_SCANNER_API_KEY;
  if (!apiKey) throw new UsageError('Set MEDIA_SCANNER_API_KEY to your API key (sk_live_… or sk_test_…).');
  return createMediaScannerClient({ apiKey, baseUrl: process.env.MEDIA_SCANNER_BASE_URL ?? 'http://127.0.0.1:4000' });
}

const intervalOf = (globals: Globals): [number, number] => [globals.pollSeconds * 1000, globals.pollSeconds * 2000];

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
const observationsOf = (api: MediaScannerClient, runId: string): Promise<Observation[]> =>
  allPages((cursor) => unwrap(api.api.GET('/v1/runs/{run_id}/observations', { params: { path: { run_id: runId }, query: { limit: '100', ...(cursor ? { cursor } : {}) } } })));

async function upload(api: MediaScannerClient, out: Printer, file: string, contentType?: UploadContentType): Promise<Upload> {
  out.note(`Uploading ${basename(file)}…`);
  const done = await withBar('upload', !out.json, (bar) =>
    api.uploadFile({ path: file }, { ...(contentType ? { contentType } : {}), onProgress: ({ sentBytes, totalBytes }) => bar.update(sentBytes / totalBytes, uploadDetail(sentBytes, totalBytes)) }),
  );
  if (done.status !== 'ready') throw new FailedWork(`Upload ${done.upload_id} is ${done.status}: ${done.error?.code ?? ''} ${done.error?.message ?? ''}`.trim(), done);
  return done;
}

/** The bar's last frame says how the work ended (/progress is not read once it has). */
const ended = <T extends { status: string }>(bar: Bar) => (record: T): T => {
  bar.update(record.status === 'completed' ? 1 : 0, record.status);
  return record;
};

const waitRun = (api: MediaScannerClient, out: Printer, globals: Globals, runId: string): Promise<Run> =>
  withBar('run', !out.json, (bar) =>
    api.waitForRun(runId, { intervalMs: intervalOf(globals), onProgress: (progress) => bar.update(progress.fraction, workDetail(progress)) }).then(ended(bar)),
  );

const waitAnalysis = (api: MediaScannerClient, out: Printer, globals: Globals, analysisId: string): Promise<Analysis> =>
  withBar('analysis', !out.json, (bar) =>
    api.waitForAnalysis(analysisId, { intervalMs: intervalOf(globals), onProgress: (progress) => bar.update(progress.fraction, workDetail(progress)) }).then(ended(bar)),
  );

const waitBatch = (api: MediaScannerClient, out: Printer, globals: Globals, batchId: string): Promise<ScannerBatch> =>
  withBar('batch', !out.json, (bar) =>
    api.waitForBatch(batchId, {
      intervalMs: intervalOf(globals),
      onUpdate: ({ counters }) =>
        bar.update(
          (counters.completed + counters.failed + counters.canceled) / counters.total,
          `${counters.completed} done, ${counters.failed} failed, ${counters.processing} running, ${counters.queued} queued`,
        ),
    }),
  );

const failedRun = (run: Run) => new FailedWork(`Run ${run.run_id} failed: ${run.error?.code ?? ''} ${run.error?.message ?? ''}`.trim(), run);

export function program(): Command {
  const root = new Command('media-scanner')
    .description('The Media Scanner Service from the command line. Set MEDIA_SCANNER_API_KEY (and MEDIA_SCANNER_BASE_URL, default http://127.0.0.1:4000).')
    .option('--json', 'print the API records as JSON (for scripts)', false)
    .addOption(new Option('--poll-seconds <n>', 'seconds between polls while waiting (SPEC: 5-10 s; each wait is n to 2n)').default(5).argParser(Number))
    .exitOverride()
    .showHelpAfterError();

  type Context = { api: MediaScannerClient; out: Printer; globals: Globals };
  /** A command's action with the globals, a printer and a client; errors become exit codes in main(). */
  const run =
    <A extends unknown[]>(action: (context: Context, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const globals = root.opts<Globals>();
      await action({ api: client(), out: printer(globals.json), globals }, ...args);
    };

  /** `<parent> <usage>`: one read (or wait) of the resource named by the argument, printed; `failed` turns its answer into exit 4. */
  const byId = <T>(parent: Command, usage: string, description: string, read: (context: Context, id: string) => Promise<T>, human: (value: T) => string, failed?: (value: T) => FailedWork | undefined) =>
    parent
      .command(usage)
      .description(description)
      .action(
        run(async (context, id: string) => {
          const value = await read(context, id);
          context.out.result(value, () => human(value));
          const failure = failed?.(value);
          if (failure) throw failure;
        }),
      );
  /** `<parent> list [--limit n]`: one page, newest first, as a table of `columns`. */
  const listCommand = <T extends object>(parent: Command, read: (api: MediaScannerClient, limit: string) => Promise<{ data: T[] }>, columns: readonly string[], maxLimit = 100) =>
    parent
      .command('list')
      .description('newest first')
      .option('--limit <n>', `page size, at most ${maxLimit}`, '20')
      .action(
        run(async ({ api, out }, options: { limit: string }) => {
          const page = await read(api, options.limit);
          out.result(page, () => table(page.data as Record<string, unknown>[], columns));
        }),
      );
  const unless = (ok: string, what: string) => (record: { status: string }) =>
    record.status === ok ? undefined : new FailedWork(`${what} is ${record.status}.`, record);

  root
    .command('account')
    .description('plan, wallet, limits, concurrency')
    .action(
      run(async ({ api, out }) => {
        const account = await unwrap(api.api.GET('/v1/account'));
        out.result(account, () =>
          keyValues({
            account_id: account.account_id,
            plan: account.plan,
            balance: `${account.wallet.balance_credits} credits`,
            concurrency: `${account.concurrency.in_use}/${account.concurrency.limit} in use, ${account.concurrency.queued} queued`,
            retention: `${account.retention.days} days`,
            max_video: bytes(account.limits.max_video_bytes),
            max_audio: bytes(account.limits.max_audio_bytes),
            proof_analysis: account.proof_allowance.analysis_available ? 'available' : 'used',
            trusted_hosts: account.trusted_hosts.join(', ') || '-',
          }),
        );
      }),
    );

  const scanners = root.command('scanners').description('saved, versioned questions');
  const definition = (command: Command) =>
    command
      .option('--name <name>', 'a name for people')
      .addOption(new Option('--type <type>', 'scanner type').choices(['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor']))
      .option('--instructions <text>', 'the question, up to 600 characters')
      .option('--labels <a,b,...>', 'classifier labels', list)
      .option('--fields <x,y,...>', 'extractor fields', list)
      .option('--min-seconds <n>', 'find_moments: shortest moment', integer('--min-seconds'))
      .option('--max-seconds <n>', 'find_moments: longest moment', integer('--max-seconds'))
      .option('--max-observations <n>', 'at most this many observations per run', integer('--max-observations'))
      .addOption(new Option('--profile <profile>').choices(['conversation', 'gameplay']))
      .option('--metadata <key=value>', 'repeat for more keys', collect);
  interface DefinitionOptions {
    name?: string;
    type?: 'find_moments' | 'monitor' | 'classifier' | 'scorer' | 'summarizer' | 'extractor';
    instructions?: string;
    labels?: string[];
    fields?: string[];
    minSeconds?: number;
    maxSeconds?: number;
    maxObservations?: number;
    profile?: 'conversation' | 'gameplay';
    metadata?: string[];
  }
  const createScanner = async (api: MediaScannerClient, options: DefinitionOptions, fallbackName: string) => {
    if (!options.type || !options.instructions) throw new UsageError('A scanner needs --type and --instructions.');
    const output = options.labels ? { labels: options.labels } : options.fields ? { fields: options.fields } : undefined;
    const metadata = metadataOf(options.metadata);
    return unwrap(
      api.api.POST('/v1/scanners', {
        body: {
          name: options.name ?? fallbackName,
          instructions: options.instructions,
          type: options.type,
          ...(options.profile ? { profile: options.profile } : {}),
          ...(options.maxObservations !== undefined ? { max_observations: options.maxObservations } : {}),
          ...(options.minSeconds !== undefined ? { min_seconds: options.minSeconds } : {}),
          ...(options.maxSeconds !== undefined ? { max_seconds: options.maxSeconds } : {}),
          ...(output ? { output } : {}),
          ...(metadata ? { metadata } : {}),
        },
      }),
    );
  };
  definition(scanners.command('create').description('create a scanner (version 1)')).action(
    run(async ({ api, out }, options: DefinitionOptions) => {
      const scanner = await createScanner(api, options, 'Scanner');
      out.result(scanner, () => keyValues(scanner, ['scanner_id', 'version', 'type', 'name', 'instructions']));
    }),
  );
  listCommand(scanners, (api, limit) => unwrap(api.api.GET('/v1/scanners', { params: { query: { limit } } })), ['scanner_id', 'version', 'type', 'name', 'created_at']);
  byId(scanners, 'get <scanner_id>', 'a scanner at its current version', ({ api }, id) => unwrap(api.api.GET('/v1/scanners/{scanner_id}', { params: { path: { scanner_id: id } } })), (scanner) =>
    keyValues(scanner),
  );

  const uploads = root.command('uploads').description('private video and audio sources');
  const contentTypeOption = () => new Option('--content-type <type>', 'when the extension does not tell (e.g. video/mp4)');
  const uploadAction = run(async ({ api, out }, file: string, options: { contentType?: UploadContentType }) => {
    const done = await upload(api, out, file, options.contentType);
    out.result(done, () => uploadText(done));
  });
  root.command('upload <file>').description('upload a file: declare, PUT with a progress bar, complete').addOption(contentTypeOption()).action(uploadAction);
  uploads.command('create <file>').description('the same as `upload`').addOption(contentTypeOption()).action(uploadAction);
  uploads
    .command('list')
    .addOption(new Option('--status <status>').choices(['pending', 'ready', 'failed', 'expired', 'deleted']))
    .option('--limit <n>', 'page size', '20')
    .action(
      run(async ({ api, out }, options: { status?: 'pending' | 'ready' | 'failed' | 'expired' | 'deleted'; limit: string }) => {
        const page = await unwrap(api.api.GET('/v1/uploads', { params: { query: { limit: options.limit, ...(options.status ? { status: options.status } : {}) } } }));
        out.result(page, () => table(page.data.map((u) => ({ ...u, size: bytes(u.size_bytes) })), ['upload_id', 'status', 'media_kind', 'size', 'filename', 'created_at']));
      }),
    );
  byId(uploads, 'get <upload_id>', 'an upload', ({ api }, id) => unwrap(api.api.GET('/v1/uploads/{upload_id}', { params: { path: { upload_id: id } } })), uploadText);

  const runs = root.command('runs').description('scanner runs');
  runs
    .command('create <scanner_id>')
    .requiredOption('--upload <upload_id>', 'a ready upload')
    .option('--window <start:end>', 'video find_moments only: seconds to analyse')
    .option('--metadata <key=value>', 'copied onto every observation; repeat for more keys', collect)
    .option('--wait', 'wait until it ends', false)
    .action(
      run(async ({ api, out, globals }, scannerId: string, options: { upload: string; window?: string; metadata?: string[]; wait: boolean }) => {
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
  byId(runs, 'get <run_id>', 'a run', ({ api }, id) => unwrap(api.api.GET('/v1/runs/{run_id}', { params: { path: { run_id: id } } })), runText);
  byId(runs, 'wait <run_id>', 'poll until completed or failed, with its progress', ({ api, out, globals }, id) => waitRun(api, out, globals, id), runText, (done) =>
    done.status === 'failed' ? failedRun(done) : undefined,
  );
  byId(
    runs,
    'observations <run_id>',
    "a completed run's observations, in rank order",
    ({ api }, id) => observationsOf(api, id),
    (observations) => observationsTable(observations, noAnswer),
  );

  root
    .command('observations')
    .description('observations across runs')
    .option('--scanner <scanner_id>')
    .option('--run <run_id>')
    .addOption(new Option('--type <type>').choices(['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor']))
    .addOption(new Option('--media-kind <kind>').choices(['video', 'audio']))
    .option('--limit <n>', 'page size', '20')
    .action(
      run(async ({ api, out }, options: { scanner?: string; run?: string; type?: Observation['type']; mediaKind?: 'video' | 'audio'; limit: string }) => {
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

  const analyses = root.command('analyses').description('one-off analyses of source URLs, and the analyses of runs');
  analyses.command('preflight <source_url>').action(
    run(async ({ api, out }, sourceUrl: string) => {
      const preflight = await unwrap(api.api.POST('/v1/sources/preflight', { body: { source_url: sourceUrl } }));
      out.result(preflight, () =>
        keyValues({
          provider: 'id' in preflight.provider ? preflight.provider.name : preflight.provider.host,
          duration: seconds(preflight.duration_ms),
          size: preflight.size_bytes === null ? null : bytes(preflight.size_bytes),
          title: preflight.title,
          max_window_seconds: preflight.max_window_seconds,
          proof_available: preflight.proof_available,
        }),
      );
    }),
  );
  const windowed = (command: Command) => command.requiredOption('--window <start:end>', 'seconds of the source to analyse').option('--proof', 'use the proof allowance', false);
  // The options of create: the quote takes the body the submission would send.
  analysisOptions(windowed(analyses.command('quote <source_url>'))).action(
    run(async ({ api, out }, sourceUrl: string, options: AnalysisOptions) => {
      const quote = await unwrap(api.api.POST('/v1/analyses/quote', { body: analysisBody(sourceUrl, options) }));
      out.result(quote, () => keyValues({ billed_seconds: quote.billed_seconds, credits: quote.credits, balance: quote.balance_credits, affordable: quote.affordable, proof_applies: quote.proof.applies }));
    }),
  );
  analysisOptions(windowed(analyses.command('create <source_url>')))
    .option('--wait', 'wait until it ends, then print its moments', false)
    .action(
      run(async ({ api, out, globals }, sourceUrl: string, options: AnalysisOptions) => {
        let analysis = await unwrap(api.api.POST('/v1/analyses', { body: analysisBody(sourceUrl, options) }));
        if (options.wait) analysis = await waitAnalysis(api, out, globals, analysis.analysis_id);
        out.result(analysis, () => analysisText(analysis));
        const failure = options.wait ? unless('completed', 'The analysis')(analysis) : undefined;
        if (failure) throw failure;
      }),
    );
  listCommand(analyses, (api, limit) => unwrap(api.api.GET('/v1/analyses', { params: { query: { limit } } })), ['analysis_id', 'kind', 'status', 'created_at']);
  const analysisPath = (id: string) => ({ params: { path: { analysis_id: id } } });
  byId(analyses, 'get <analysis_id>', 'an analysis', ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}', analysisPath(id))), analysisText);
  byId(analyses, 'wait <analysis_id>', 'poll until completed, failed or canceled', ({ api, out, globals }, id) => waitAnalysis(api, out, globals, id), analysisText, unless('completed', 'The analysis'));
  byId(
    analyses,
    'moments <analysis_id>',
    'the ranked moments of a completed analysis',
    ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}/moments', analysisPath(id))),
    momentsTable,
  );
  byId(analyses, 'progress <analysis_id>', 'queue position and progress', ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}/progress', analysisPath(id))), (progress) =>
    `${workDetail(progress)} (${Math.round(progress.fraction * 100)}%)`,
  );
  byId(analyses, 'cancel <analysis_id>', 'cancel queued work (refunded)', ({ api }, id) => unwrap(api.api.POST('/v1/analyses/{analysis_id}/cancel', analysisPath(id))), analysisText);

  const batches = root.command('batches').description('scanner batches: up to 100 scanner/upload items');
  batches
    .command('create <file>')
    .description('items from a CSV (client_id,scanner_id,upload_id) or a JSON array of items')
    .option('--idempotency-key <key>', 'retry a submission under the key it printed, never a new one (default: a new UUID)')
    .option('--wait', 'wait until the batch settles', false)
    .action(
      run(async ({ api, out, globals }, file: string, options: { idempotencyKey?: string; wait: boolean }) => {
        const items = await batchItems(file);
        const key = options.idempotencyKey ?? randomUUID();
        out.note(`Idempotency-Key: ${key} (to retry this submission, pass --idempotency-key ${key})`);
        let batch = await unwrap(api.api.POST('/v1/scanner-batches', { params: { header: { 'Idempotency-Key': key } }, body: { items } }));
        if (options.wait) batch = await waitBatch(api, out, globals, batch.batch_id);
        out.result(batch, () => batchText(batch));
        const failure = options.wait ? unless('completed', 'The batch')(batch) : undefined;
        if (failure) throw failure;
      }),
    );
  listCommand(
    batches,
    async (api, limit) => {
      const page = await unwrap(api.api.GET('/v1/scanner-batches', { params: { query: { limit } } }));
      return { ...page, data: page.data.map((batch) => ({ ...batch, ...batch.counters })) };
    },
    ['batch_id', 'status', 'total', 'completed', 'failed', 'created_at'],
    50,
  );
  const batchPath = (id: string) => ({ params: { path: { batch_id: id } } });
  byId(batches, 'get <batch_id>', 'a batch with its first page of items', ({ api }, id) => unwrap(api.api.GET('/v1/scanner-batches/{batch_id}', batchPath(id))), batchText);
  byId(batches, 'wait <batch_id>', 'poll until the batch settles, with its counters', ({ api, out, globals }, id) => waitBatch(api, out, globals, id), batchText, unless('completed', 'The batch'));
  byId(batches, 'cancel <batch_id>', 'queued items never start; spawned ones drain', ({ api }, id) => unwrap(api.api.POST('/v1/scanner-batches/{batch_id}/cancel', batchPath(id))), (canceled) =>
    keyValues({ batch_id: canceled.batch_id, status: canceled.status, ...canceled.counters }),
  );

  definition(
    root
      .command('scan <file>')
      .description('upload a file, create a scanner (or use --scanner), run it, follow its progress and print the observations')
      .option('--scanner <scanner_id>', 'an existing scanner instead of --type/--instructions')
      .option('--window <start:end>', 'video find_moments only: seconds to analyse')
      .addOption(contentTypeOption()),
  ).action(
    run(async ({ api, out, globals }, file: string, options: DefinitionOptions & { scanner?: string; window?: string; contentType?: UploadContentType }) => {
      if (!options.scanner && (!options.type || !options.instructions)) throw new UsageError('scan needs --scanner, or --type and --instructions.');
      const window = windowOf(options.window);
      const uploaded = await upload(api, out, file, options.contentType);
      out.note(`Uploaded ${uploaded.upload_id} (${seconds(uploaded.duration_ms)} of ${uploaded.media_kind}).`);
      const scannerId = options.scanner ?? (await createScanner(api, options, `scan ${basename(file, extname(file))}`)).scanner_id;
      const created = await unwrap(
        api.api.POST('/v1/scanners/{scanner_id}/runs', { params: { path: { scanner_id: scannerId } }, body: { upload_id: uploaded.upload_id, ...window } }),
      );
      out.note(`Run ${created.run_id}: ${created.billing.credits} credit(s) reserved.`);
      const done = await waitRun(api, out, globals, created.run_id);
      if (done.status === 'failed') throw failedRun(done);
      const observations = await observationsOf(api, done.run_id);
      out.result({ upload: uploaded, scanner_id: scannerId, run: done, observations }, () => `${runText(done)}\n\n${observationsTable(observations, noAnswer)}`);
    }),
  );

  analysisOptions(windowed(root.command('analyze <source_url>').description('a one-off analysis of a video URL: preflight, quote (credits, affordable?), submit; with --wait, its ranked moments')))
    .addHelpText(
      'after',
      '\nThe submission carries an Idempotency-Key (the client adds one; its retries reuse it), so a retried request\nnever starts or bills the analysis twice. When the quote is not affordable nothing is submitted (exit 3,\ninsufficient_credits).',
    )
    .option('--wait', 'wait until it ends, then print its ranked moments', false)
    .action(
      run(async ({ api, out, globals }, sourceUrl: string, options: AnalysisOptions) => {
        const body = analysisBody(sourceUrl, options);
        const preflight = await unwrap(api.api.POST('/v1/sources/preflight', { body: { source_url: sourceUrl } }));
        const provider = 'id' in preflight.provider ? preflight.provider.name : preflight.provider.host;
        out.note(`Source: ${provider}, ${seconds(preflight.duration_ms)}; up to ${preflight.max_window_seconds}s can be analysed now${preflight.proof_available ? ', proof allowance available' : ''}.`);
        const quote = await unwrap(api.api.POST('/v1/analyses/quote', { body }));
        out.note(
          `Quote: ${quote.credits} credit(s) for ${quote.billed_seconds}s${quote.proof.applies ? ' (proof allowance)' : ''}; balance ${quote.balance_credits}: ${quote.affordable ? 'affordable' : 'not affordable'}.`,
        );
        if (!quote.affordable) {
          throw new MediaScannerError(402, 'insufficient_credits', `The quote is ${quote.credits} credit(s) and the balance ${quote.balance_credits}: nothing was submitted.`, undefined);
        }
        let analysis = await unwrap(api.api.POST('/v1/analyses', { body }));
        out.note(`Analysis ${analysis.analysis_id}: ${analysis.billing.credits} credit(s) reserved.`);
        if (options.wait) analysis = await waitAnalysis(api, out, globals, analysis.analysis_id);
        const moments = analysis.status === 'completed' ? await unwrap(api.api.GET('/v1/analyses/{analysis_id}/moments', { params: { path: { analysis_id: analysis.analysis_id } } })) : undefined;
        out.result({ preflight, quote, analysis, ...(moments ? { moments } : {}) }, () => (moments ? `${analysisText(analysis)}\n\n${momentsTable(moments)}` : analysisText(analysis)));
        const failure = options.wait ? unless('completed', 'The analysis')(analysis) : undefined;
        if (failure) throw failure;
      }),
    );

  root
    .command('batch <csv>')
    .description('submit a scanner batch from a CSV and show its counters live until it ends')
    .addHelpText(
      'after',
      [
        '',
        'The CSV: a header client_id,scanner_id,upload_id[,metadata_json], then 1 to 100 items with unique',
        'client_id values; metadata_json is a JSON object in a quoted field: "{""episode"":42}". It is checked',
        'before anything is sent (exit 2 with the line that is wrong).',
        '',
        "Idempotency-Key: the SHA-256 of the file's bytes. Running batch again on the same file (within the",
        "API's 24 hours) never submits it twice: it follows the batch the first run created. Change the file",
        'to submit a new batch.',
        '',
        'Counters go to stderr (not with --json): one line rewritten in place on a terminal, otherwise a line',
        'whenever they change and once a minute while they do not. Exit 4 when the batch ends other than',
        'completed (partial, failed, canceled).',
      ].join('\n'),
    )
    .action(
      run(async ({ api, out, globals }, file: string) => {
        const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
          throw new UsageError(`${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`);
        });
        const items = batchItemsFromCsv(bytes.toString('utf8'), file);
        const key = batchIdempotencyKey(bytes);
        const answer = await api.api.POST('/v1/scanner-batches', { params: { header: { 'Idempotency-Key': key } }, body: { items } });
        const submitted = await unwrap(Promise.resolve(answer));
        out.note(
          answer.response.headers.get('idempotent-replayed') === 'true'
            ? `${file} was already submitted as ${submitted.batch_id} (Idempotency-Key ${key}); following that batch.`
            : `Batch ${submitted.batch_id}: ${items.length} item(s) (Idempotency-Key ${key}).`,
        );
        const display = counterDisplay(!out.json);
        let settled = submitted;
        if (!terminalBatchStatuses.has(submitted.status)) {
          display.update(submitted.status, submitted.counters);
          settled = await api.waitForBatch(submitted.batch_id, { intervalMs: intervalOf(globals), onUpdate: (batch) => display.update(batch.status, batch.counters) });
        }
        display.stop(settled.status, settled.counters);
        // waitForBatch reads one item a page; the result has them all (a batch holds at most 100).
        const batch = await unwrap(api.api.GET('/v1/scanner-batches/{batch_id}', { params: { path: { batch_id: settled.batch_id }, query: { item_limit: '100' } } }));
        out.result(batch, () => batchText(batch));
        const failure = unless('completed', `Batch ${batch.batch_id}`)(batch);
        if (failure) throw failure;
      }),
    );

  root
    .command('timeline <run_id>')
    .description("draw a completed run's observations on a time axis over the source duration (one lane per event or scanner type, bar height = score)")
    .requiredOption('--out <file>', 'FILE.svg, or FILE.html (the same SVG in a page with a legend)')
    .action(
      run(async ({ api, out }, runId: string, options: { out: string }) => {
        const format = extname(options.out).toLowerCase();
        if (format !== '.svg' && format !== '.html') throw new UsageError(`--out ends in .svg or .html, not "${options.out}".`);
        const record = await unwrap(api.api.GET('/v1/runs/{run_id}', { params: { path: { run_id: runId } } }));
        const observations = await observationsOf(api, runId);
        await writeFile(options.out, format === '.svg' ? renderTimeline(record, observations) : renderTimelineHtml(record, observations));
        const lanes = lanesOf(observations).map(({ name, count }) => ({ name, count }));
        out.result({ out: resolve(options.out), run_id: record.run_id, duration_ms: record.source.duration_ms, observations: observations.length, lanes }, () =>
          `Wrote ${options.out}: ${observations.length} observation(s) in ${lanes.length} lane(s) over ${mmss(record.source.duration_ms)}.`,
        );
      }),
    );

  return root;
}

/** Batch items from a CSV (batch-csv.ts: client_id,scanner_id,upload_id[,metadata_json]) or from JSON (an array, or {items}). */
async function batchItems(file: string): Promise<BatchItemInput[]> {
  const text = await readFile(file, 'utf8');
  if (/^\s*[[{]/.test(text)) {
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : (parsed as { items: unknown[] }).items) as BatchItemInput[];
  }
  return batchItemsFromCsv(text, file);
}

export async function main(argv: readonly string[]): Promise<number> {
  const root = program();
  try {
    await root.parseAsync([...argv], { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not errors; commander already printed what was wrong otherwise.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    return reportError(error, root.opts<Globals>().json);
  }
}
