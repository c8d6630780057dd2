import { basename, extname } from 'node:path';
import { unwrap, type UploadContentType } from '../../../client/src/index.js';
import { seconds, UsageError } from '../output.js';
import { windowOf } from './args.js';
import type { Cli } from './cli.js';
import { failedRun, noAnswer, observationsOf, observationsTable, runText, waitRun } from './runs.js';
import { createScanner, definitionOptions, type DefinitionOptions } from './scanners.js';
import { contentTypeOption, upload } from './uploads.js';

/** `scan`: upload, scanner (created or given), run, progress, observations: the whole loop in one command. */
export function scanCommand(cli: Cli): void {
  definitionOptions(
    cli.root
      .command('scan <file>')
      .description('upload a file, create a scanner (or use --scanner), run it, follow its progress and print the observations')
      .option('--scanner <scanner_id>', 'an existing scanner instead of --type/--instructions')
      .option('--window <start:end>', 'video find_moments only: seconds to analyse')
      .addOption(contentTypeOption()),
  ).action(
    cli.run(
      async ({ api, out, globals }, file: string, options: DefinitionOptions & { scanner?: string; window?: string; contentType?: UploadContentType }) => {
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
        out.result(
          { upload: uploaded, scanner_id: scannerId, run: done, observations },
          () => `${runText(done)}\n\n${observationsTable(observations, noAnswer)}`,
        );
      },
    ),
  );
}
