import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { terminalBatchStatuses, unwrap, type MediaScannerClient, type ScannerBatch } from '../../../client/src/index.js';
import { batchIdempotencyKey, batchItemsFromCsv, type BatchItemInput } from '../batch-csv.js';
import { keyValues, table, UsageError, type Printer } from '../output.js';
import { counterDisplay, withBar } from '../progress.js';
import { intervalOf, unless, type Cli, type Globals } from './cli.js';

const batchText = (batch: ScannerBatch) =>
  `${keyValues({ batch_id: batch.batch_id, status: batch.status, ...batch.counters })}\n\n${table(
    batch.items.map((item) => ({ ...item, error: item.error?.code })),
    ['client_id', 'status', 'scanner_id', 'upload_id', 'run_id', 'error'],
  )}`;

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

/** Batch items from a CSV (batch-csv.ts: client_id,scanner_id,upload_id[,metadata_json]) or from JSON (an array, or {items}). */
async function batchItems(file: string): Promise<BatchItemInput[]> {
  const text = await readFile(file, 'utf8');
  if (/^\s*[[{]/.test(text)) {
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : (parsed as { items: unknown[] }).items) as BatchItemInput[];
  }
  return batchItemsFromCsv(text, file);
}

/** `batches create|list|get|wait|cancel`: scanner batches. */
export function batchesCommands(cli: Cli): void {
  const batches = cli.root.command('batches').description('scanner batches: up to 100 scanner/upload items');
  batches
    .command('create <file>')
    .description('items from a CSV (client_id,scanner_id,upload_id) or a JSON array of items')
    .option('--idempotency-key <key>', 'retry a submission under the key it printed, never a new one (default: a new UUID)')
    .option('--wait', 'wait until the batch settles', false)
    .action(
      cli.run(async ({ api, out, globals }, file: string, options: { idempotencyKey?: string; wait: boolean }) => {
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
  cli.list(
    batches,
    async (api, limit) => {
      const page = await unwrap(api.api.GET('/v1/scanner-batches', { params: { query: { limit } } }));
      return { ...page, data: page.data.map((batch) => ({ ...batch, ...batch.counters })) };
    },
    ['batch_id', 'status', 'total', 'completed', 'failed', 'created_at'],
    50,
  );
  const batchPath = (id: string) => ({ params: { path: { batch_id: id } } });
  cli.byId(
    batches,
    'get <batch_id>',
    'a batch with its first page of items',
    ({ api }, id) => unwrap(api.api.GET('/v1/scanner-batches/{batch_id}', batchPath(id))),
    batchText,
  );
  cli.byId(
    batches,
    'wait <batch_id>',
    'poll until the batch settles, with its counters',
    ({ api, out, globals }, id) => waitBatch(api, out, globals, id),
    batchText,
    unless('completed', 'The batch'),
  );
  cli.byId(
    batches,
    'cancel <batch_id>',
    'queued items never start; spawned ones drain',
    ({ api }, id) => unwrap(api.api.POST('/v1/scanner-batches/{batch_id}/cancel', batchPath(id))),
    (canceled) => keyValues({ batch_id: canceled.batch_id, status: canceled.status, ...canceled.counters }),
  );
}

/** `batch`: a scanner batch from a CSV, idempotent by the file's bytes, its counters live until it ends. */
export function batchCommand(cli: Cli): void {
  cli.root
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
      cli.run(async ({ api, out, globals }, file: string) => {
        const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
          throw new UsageError(`${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`);
        });
        const items = batchItemsFromCsv(bytes.toString('utf8'), file);
        const key = await batchIdempotencyKey(bytes);
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
          settled = await api.waitForBatch(submitted.batch_id, {
            intervalMs: intervalOf(globals),
            onUpdate: (batch) => display.update(batch.status, batch.counters),
          });
        }
        display.stop(settled.status, settled.counters);
        // waitForBatch reads one item a page; the result has them all (a batch holds at most 100).
        const batch = await unwrap(
          api.api.GET('/v1/scanner-batches/{batch_id}', { params: { path: { batch_id: settled.batch_id }, query: { item_limit: '100' } } }),
        );
        out.result(batch, () => batchText(batch));
        const failure = unless('completed', `Batch ${batch.batch_id}`)(batch);
        if (failure) throw failure;
      }),
    );
}
