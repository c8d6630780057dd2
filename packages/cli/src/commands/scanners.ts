import { Option, type Command } from 'commander';
import { unwrap, type MediaScannerClient } from '../../../client/src/index.js';
import { keyValues, UsageError } from '../output.js';
import { collect, integer, list, metadataOf } from './args.js';
import type { Cli } from './cli.js';

const scannerTypes = ['find_moments', 'monitor', 'classifier', 'scorer', 'summarizer', 'extractor'] as const;
type ScannerType = (typeof scannerTypes)[number];

/** A scanner's definition as options (`scanners create` and `scan`). */
export interface DefinitionOptions {
  name?: string;
  type?: ScannerType;
  instructions?: string;
  labels?: string[];
  fields?: string[];
  minSeconds?: number;
  maxSeconds?: number;
  maxObservations?: number;
  profile?: 'conversation' | 'gameplay';
  metadata?: string[];
}

export const definitionOptions = (command: Command) =>
  command
    .option('--name <name>', 'a name for people')
    .addOption(new Option('--type <type>', 'scanner type').choices(scannerTypes))
    .option('--instructions <text>', 'the question, up to 600 characters')
    .option('--labels <a,b,...>', 'classifier labels', list)
    .option('--fields <x,y,...>', 'extractor fields', list)
    .option('--min-seconds <n>', 'find_moments: shortest moment', integer('--min-seconds'))
    .option('--max-seconds <n>', 'find_moments: longest moment', integer('--max-seconds'))
    .option('--max-observations <n>', 'at most this many observations per run', integer('--max-observations'))
    .addOption(new Option('--profile <profile>').choices(['conversation', 'gameplay']))
    .option('--metadata <key=value>', 'repeat for more keys', collect);

/** The `--type` choices of commands that filter by scanner type. */
export const scannerTypeOption = () => new Option('--type <type>').choices(scannerTypes);

export async function createScanner(api: MediaScannerClient, options: DefinitionOptions, fallbackName: string) {
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
}

/** `scanners create|list|get`: saved, versioned questions. */
export function scannersCommands(cli: Cli): void {
  const scanners = cli.root.command('scanners').description('saved, versioned questions');
  definitionOptions(scanners.command('create').description('create a scanner (version 1)')).action(
    cli.run(async ({ api, out }, options: DefinitionOptions) => {
      const scanner = await createScanner(api, options, 'Scanner');
      out.result(scanner, () => keyValues(scanner, ['scanner_id', 'version', 'type', 'name', 'instructions']));
    }),
  );
  cli.list(scanners, (api, limit) => unwrap(api.api.GET('/v1/scanners', { params: { query: { limit } } })), [
    'scanner_id',
    'version',
    'type',
    'name',
    'created_at',
  ]);
  cli.byId(
    scanners,
    'get <scanner_id>',
    'a scanner at its current version',
    ({ api }, id) => unwrap(api.api.GET('/v1/scanners/{scanner_id}', { params: { path: { scanner_id: id } } })),
    (scanner) => keyValues(scanner),
  );
}
