/**
 * media-scanner: the Media Scanner Service from the command line, on the typed client
 * (packages/client). Configured by MEDIA_SCANNER_API_KEY and MEDIA_SCANNER_BASE_URL (default the
 * local host). `--json` prints the API's records for scripts; otherwise tables for people.
 * Exit codes: 0 ok, 1 unexpected, 2 usage, 3 API error (its code on stderr), 4 the work failed,
 * 5 still running when the wait gave up.
 */
import { CommanderError, type Command } from 'commander';
import { exitCodes, reportError } from './output.js';
import { accountCommand } from './commands/account.js';
import { analysesCommands, analyzeCommand } from './commands/analyses.js';
import { batchCommand, batchesCommands } from './commands/batches.js';
import { Cli, type Globals } from './commands/cli.js';
import { observationsCommand, runsCommands } from './commands/runs.js';
import { scanCommand } from './commands/scan.js';
import { scannersCommands } from './commands/scanners.js';
import { timelineCommand } from './commands/timeline.js';
import { uploadsCommands } from './commands/uploads.js';

/** The program: one module per command group (commands/), registered in the order `--help` lists them. */
function program(): Command {
  const cli = new Cli();
  accountCommand(cli);
  scannersCommands(cli);
  uploadsCommands(cli);
  runsCommands(cli);
  observationsCommand(cli);
  analysesCommands(cli);
  batchesCommands(cli);
  scanCommand(cli);
  analyzeCommand(cli);
  batchCommand(cli);
  timelineCommand(cli);
  return cli.root;
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
