import { Command, Option } from 'commander';
import { createMediaScannerClient, type MediaScannerClient } from '../../../client/src/index.js';
import { FailedWork, printer, table, UsageError, type Printer } from '../output.js';

/** The root's options, read by every command. */
export interface Globals {
  json: boolean;
  pollSeconds: number;
}

/** What a command's action gets: a client, a printer, the globals. */
interface Context {
  api: MediaScannerClient;
  out: Printer;
  globals: Globals;
}

function client(): MediaScannerClient {
  const apiKey = process.env.MEDIA_SCANNER_API_KEY;
  if (!apiKey) throw new UsageError('Set MEDIA_SCANNER_API_KEY to your API key (sk_live_… or sk_test_…).');
  return createMediaScannerClient({ apiKey, baseUrl: process.env.MEDIA_SCANNER_BASE_URL ?? 'http://127.0.0.1:4000' });
}

/**
 * The program's root and the helpers every command module builds its commands with. Errors
 * thrown by an action become exit codes in main().
 */
export class Cli {
  readonly root: Command;

  constructor() {
    this.root = new Command('media-scanner')
      .description('The Media Scanner Service from the command line. Set MEDIA_SCANNER_API_KEY (and MEDIA_SCANNER_BASE_URL, default http://127.0.0.1:4000).')
      .option('--json', 'print the API records as JSON (for scripts)', false)
      .addOption(new Option('--poll-seconds <n>', 'seconds between polls while waiting (SPEC: 5-10 s; each wait is n to 2n)').default(5).argParser(Number))
      .exitOverride()
      .showHelpAfterError();
  }

  /** A command's action with the globals, a printer and a client. */
  run<A extends unknown[]>(action: (context: Context, ...args: A) => Promise<void>) {
    return async (...args: A) => {
      const globals = this.root.opts<Globals>();
      await action({ api: client(), out: printer(globals.json), globals }, ...args);
    };
  }

  /** `<parent> <usage>`: one read (or wait) of the resource named by the argument, printed; `failed` turns its answer into exit 4. */
  byId<T>(
    parent: Command,
    usage: string,
    description: string,
    read: (context: Context, id: string) => Promise<T>,
    human: (value: T) => string,
    failed?: (value: T) => FailedWork | undefined,
  ) {
    return parent
      .command(usage)
      .description(description)
      .action(
        this.run(async (context, id: string) => {
          const value = await read(context, id);
          context.out.result(value, () => human(value));
          const failure = failed?.(value);
          if (failure) throw failure;
        }),
      );
  }

  /** `<parent> list [--limit n]`: one page, newest first, as a table of `columns`. */
  list<T extends object>(
    parent: Command,
    read: (api: MediaScannerClient, limit: string) => Promise<{ data: T[] }>,
    columns: readonly string[],
    maxLimit = 100,
  ) {
    return parent
      .command('list')
      .description('newest first')
      .option('--limit <n>', `page size, at most ${maxLimit}`, '20')
      .action(
        this.run(async ({ api, out }, options: { limit: string }) => {
          const page = await read(api, options.limit);
          out.result(page, () => table(page.data as Record<string, unknown>[], columns));
        }),
      );
  }
}

/** Exit 4 unless the record ended `ok`. */
export const unless = (ok: string, what: string) => (record: { status: string }) =>
  record.status === ok ? undefined : new FailedWork(`${what} is ${record.status}.`, record);

/** How long to wait between polls: n to 2n seconds. */
export const intervalOf = (globals: Globals): [number, number] => [globals.pollSeconds * 1000, globals.pollSeconds * 2000];
