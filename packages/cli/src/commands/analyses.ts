import { Option, type Command } from 'commander';
import { MediaScannerError, unwrap, type Analysis, type MediaScannerClient, type MomentList, type paths } from '../../../client/src/index.js';
import { bytes, keyValues, seconds, table, UsageError, type Printer } from '../output.js';
import { ended, withBar, workDetail } from '../progress.js';
import { integer, list, windowOf } from './args.js';
import { intervalOf, unless, type Cli, type Globals } from './cli.js';

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

const waitAnalysis = (api: MediaScannerClient, out: Printer, globals: Globals, analysisId: string): Promise<Analysis> =>
  withBar('analysis', !out.json, (bar) =>
    api
      .waitForAnalysis(analysisId, { intervalMs: intervalOf(globals), onProgress: (progress) => bar.update(progress.fraction, workDetail(progress)) })
      .then(ended(bar)),
  );

/** The window and the proof allowance: what every command that quotes or submits an analysis takes. */
const windowed = (command: Command) =>
  command.requiredOption('--window <start:end>', 'seconds of the source to analyse').option('--proof', 'use the proof allowance', false);

/** `analyses preflight|quote|create|list|get|wait|moments|progress|cancel`. */
export function analysesCommands(cli: Cli): void {
  const analyses = cli.root.command('analyses').description('one-off analyses of source URLs, and the analyses of runs');
  analyses.command('preflight <source_url>').action(
    cli.run(async ({ api, out }, sourceUrl: string) => {
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
  // The options of create: the quote takes the body the submission would send.
  analysisOptions(windowed(analyses.command('quote <source_url>'))).action(
    cli.run(async ({ api, out }, sourceUrl: string, options: AnalysisOptions) => {
      const quote = await unwrap(api.api.POST('/v1/analyses/quote', { body: analysisBody(sourceUrl, options) }));
      out.result(quote, () =>
        keyValues({
          billed_seconds: quote.billed_seconds,
          credits: quote.credits,
          balance: quote.balance_credits,
          affordable: quote.affordable,
          proof_applies: quote.proof.applies,
        }),
      );
    }),
  );
  analysisOptions(windowed(analyses.command('create <source_url>')))
    .option('--wait', 'wait until it ends, then print its moments', false)
    .action(
      cli.run(async ({ api, out, globals }, sourceUrl: string, options: AnalysisOptions) => {
        let analysis = await unwrap(api.api.POST('/v1/analyses', { body: analysisBody(sourceUrl, options) }));
        if (options.wait) analysis = await waitAnalysis(api, out, globals, analysis.analysis_id);
        out.result(analysis, () => analysisText(analysis));
        const failure = options.wait ? unless('completed', 'The analysis')(analysis) : undefined;
        if (failure) throw failure;
      }),
    );
  cli.list(analyses, (api, limit) => unwrap(api.api.GET('/v1/analyses', { params: { query: { limit } } })), ['analysis_id', 'kind', 'status', 'created_at']);
  const analysisPath = (id: string) => ({ params: { path: { analysis_id: id } } });
  cli.byId(analyses, 'get <analysis_id>', 'an analysis', ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}', analysisPath(id))), analysisText);
  cli.byId(
    analyses,
    'wait <analysis_id>',
    'poll until completed, failed or canceled',
    ({ api, out, globals }, id) => waitAnalysis(api, out, globals, id),
    analysisText,
    unless('completed', 'The analysis'),
  );
  cli.byId(
    analyses,
    'moments <analysis_id>',
    'the ranked moments of a completed analysis',
    ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}/moments', analysisPath(id))),
    momentsTable,
  );
  cli.byId(
    analyses,
    'progress <analysis_id>',
    'queue position and progress',
    ({ api }, id) => unwrap(api.api.GET('/v1/analyses/{analysis_id}/progress', analysisPath(id))),
    (progress) => `${workDetail(progress)} (${Math.round(progress.fraction * 100)}%)`,
  );
  cli.byId(
    analyses,
    'cancel <analysis_id>',
    'cancel queued work (refunded)',
    ({ api }, id) => unwrap(api.api.POST('/v1/analyses/{analysis_id}/cancel', analysisPath(id))),
    analysisText,
  );
}

/** `analyze`: preflight, quote (credits, affordable?), submit; with --wait, the ranked moments. */
export function analyzeCommand(cli: Cli): void {
  analysisOptions(
    windowed(
      cli.root
        .command('analyze <source_url>')
        .description('a one-off analysis of a video URL: preflight, quote (credits, affordable?), submit; with --wait, its ranked moments'),
    ),
  )
    .addHelpText(
      'after',
      '\nThe submission carries an Idempotency-Key (the client adds one; its retries reuse it), so a retried request\nnever starts or bills the analysis twice. When the quote is not affordable nothing is submitted (exit 3,\ninsufficient_credits).',
    )
    .option('--wait', 'wait until it ends, then print its ranked moments', false)
    .action(
      cli.run(async ({ api, out, globals }, sourceUrl: string, options: AnalysisOptions) => {
        const body = analysisBody(sourceUrl, options);
        const preflight = await unwrap(api.api.POST('/v1/sources/preflight', { body: { source_url: sourceUrl } }));
        const provider = 'id' in preflight.provider ? preflight.provider.name : preflight.provider.host;
        out.note(
          `Source: ${provider}, ${seconds(preflight.duration_ms)}; up to ${preflight.max_window_seconds}s can be analysed now${preflight.proof_available ? ', proof allowance available' : ''}.`,
        );
        const quote = await unwrap(api.api.POST('/v1/analyses/quote', { body }));
        out.note(
          `Quote: ${quote.credits} credit(s) for ${quote.billed_seconds}s${quote.proof.applies ? ' (proof allowance)' : ''}; balance ${quote.balance_credits}: ${quote.affordable ? 'affordable' : 'not affordable'}.`,
        );
        if (!quote.affordable) {
          throw new MediaScannerError(
            402,
            'insufficient_credits',
            `The quote is ${quote.credits} credit(s) and the balance ${quote.balance_credits}: nothing was submitted.`,
            undefined,
          );
        }
        let analysis = await unwrap(api.api.POST('/v1/analyses', { body }));
        out.note(`Analysis ${analysis.analysis_id}: ${analysis.billing.credits} credit(s) reserved.`);
        if (options.wait) analysis = await waitAnalysis(api, out, globals, analysis.analysis_id);
        const moments =
          analysis.status === 'completed'
            ? await unwrap(api.api.GET('/v1/analyses/{analysis_id}/moments', { params: { path: { analysis_id: analysis.analysis_id } } }))
            : undefined;
        out.result({ preflight, quote, analysis, ...(moments ? { moments } : {}) }, () =>
          moments ? `${analysisText(analysis)}\n\n${momentsTable(moments)}` : analysisText(analysis),
        );
        const failure = options.wait ? unless('completed', 'The analysis')(analysis) : undefined;
        if (failure) throw failure;
      }),
    );
}
