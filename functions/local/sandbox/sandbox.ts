/**
 * The local host's sandbox (DESIGN §11): every unit that runs a child process or touches the disk
 * runs inside a bubblewrap view made from its run-time contract (view.ts), so a write outside its
 * writable paths fails (EROFS) and a binary it does not ship fails to start (ENOENT), as on AWS.
 * Container tasks and the workflow tasks that carry the ffmpeg layer run whole inside it
 * (container-tasks.ts, task-children.ts); routes run in the host's process, and the binaries they
 * start go through `launch`, inside the view of the unit running (unit-context.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { config, POCKETSPHINX_DEFAULTS } from '../../config.js';
import type { Launch } from '../../adapters/child-process.js';
import { resolveFfmpegPath, resolveFfprobePath } from '../../adapters/ffmpeg-binaries.js';
import { locateYtDlp } from '../../adapters/sources/yt-dlp.js';
import { localPython } from '../../adapters/sources/process-provider-resolver.js';
import { DOCKERFILE, imageFacts, runtimeContracts, units, type RuntimeContract, type ShippedBinary } from '../../runtime/contracts.js';
import { shippedFiles } from '../../runtime/shipped-files.js';
import { currentUnit } from '../unit-context.js';
import { bwrapArgs, unitView, type Bind, type HostFacts, type UnitView } from './view.js';

/** What to run to install bubblewrap, named where it is missing. */
export const BUBBLEWRAP_INSTALL = 'apt-get install bubblewrap';

const repoRoot = realpathSync(join(import.meta.dirname, '..', '..', '..'));

let usable: boolean | undefined;

/** Whether bubblewrap is installed and can make a view here (user namespaces allowed); checked once. */
export function bubblewrapWorks(): boolean {
  usable ??= spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '--', 'true'], { stdio: 'ignore' }).status === 0;
  return usable;
}

/**
 * Test hook, local host only: LOCAL_CONTAINER_DOCKERFILE=<file> makes the container tasks'
 * contracts from that Dockerfile instead of layers/ffmpeg/Dockerfile (a test proves a task fails
 * without the image's VOLUME).
 */
function localContracts(env: NodeJS.ProcessEnv): ReadonlyMap<string, RuntimeContract> {
  return runtimeContracts(imageFacts(readFileSync(env.LOCAL_CONTAINER_DOCKERFILE ?? DOCKERFILE, 'utf8')));
}

/** Executables live here on Debian and in the images; PATH may name more. */
const STANDARD_EXECUTABLE_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin', '/usr/libexec', '/usr/games', '/bin', '/sbin', '/opt'];
/** Where `#!/usr/bin/env <program>` finds its program in the image and on Lambda. */
const IMAGE_PATH = ['/usr/local/bin', '/usr/bin'];

/**
 * Variables by which the local host names its own binaries (and its temp directory): inside a view
 * the contract's environment says where they are, or nothing does, as on AWS.
 */
const HOST_BINARY_VARIABLES = ['FFMPEG_PATH', 'FFPROBE_PATH', 'YT_DLP_PATH', 'TMPDIR'] as const;
/** The local aligner's settings: a unit whose image installs pocketsphinx finds it where the image has it (their defaults). */
const ALIGNER_VARIABLES = ['POCKETSPHINX_BIN', 'POCKETSPHINX_MODEL_DIR'] as const;

/** The interpreter a script's first line names, bound where it names it (and env's program beside it). */
function interpreterOf(file: string): Bind[] {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(256);
  const length = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const line = head.subarray(0, length).toString('utf8').split('\n')[0] ?? '';
  if (!line.startsWith('#!')) return [];
  const [interpreter = '', program] = line.slice(2).trim().split(/\s+/);
  const bind = (path: string) => ({ source: realpathSync(path), path });
  const found = program && interpreter.endsWith('/env') ? IMAGE_PATH.map((dir) => join(dir, program)).find(existsSync) : undefined;
  return [bind(interpreter), ...(found ? [bind(found)] : [])];
}

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** This machine's facts (view.ts HostFacts), read once per host. */
async function hostFacts(env: NodeJS.ProcessEnv): Promise<HostFacts> {
  const ytDlp = await locateYtDlp({ binaryPath: env.YT_DLP_PATH, searchPath: env.PATH }).catch(() => undefined);
  // This host's pocketsphinx and model, shown where the image installs them to the units whose image does.
  const aligner = env.POCKETSPHINX_BIN || POCKETSPHINX_DEFAULTS.bin;
  const alignerModel = env.POCKETSPHINX_MODEL_DIR || POCKETSPHINX_DEFAULTS.modelDir;
  const binaries: Partial<Record<ShippedBinary, string>> = {
    ffmpeg: resolveFfmpegPath(env.FFMPEG_PATH),
    ffprobe: resolveFfprobePath(env.FFPROBE_PATH),
    ...(ytDlp ? { 'yt-dlp': ytDlp } : {}),
    ...(existsSync(aligner) ? { pocketsphinx: aligner } : {}),
  };
  const interpreters = Object.fromEntries(Object.entries(binaries).map(([binary, path]) => [binary, interpreterOf(path)]));
  // PATH as the host has it: entries that are relative or name no directory hide nothing.
  const candidates = [...STANDARD_EXECUTABLE_DIRS, ...(env.PATH ?? '').split(delimiter)]
    .filter((dir) => dir.startsWith('/') && isDirectory(dir))
    .map((dir) => realpathSync(dir));
  const executableDirs = [...new Set(candidates)].filter((dir) => dir !== '/');
  // Where the checkout's packages really are (node_modules may be a link to another folder); Node loads them from there.
  const packages = realpathSync(join(repoRoot, 'node_modules'));
  // The call recorder's log: every unit appends its AWS calls to it (aws-calls/recorder.ts).
  const log = env.AWS_CALL_LOG;
  if (log) closeSync(openSync(log, 'a'));
  return {
    binaries,
    interpreters,
    files: {
      fonts: shippedFiles.fonts(),
      detector: shippedFiles.detector(),
      speech: shippedFiles.speech(),
      'pocketsphinx-model': isDirectory(alignerModel) ? readdirSync(alignerModel).map((name) => ({ name, source: join(alignerModel, name) })) : [],
    },
    executableDirs: executableDirs.filter((dir) => !executableDirs.some((other) => dir.startsWith(`${other}/`))),
    node: process.execPath,
    python: localPython(),
    addedWritable: log ? [log] : [],
    inPlace: packages.startsWith(`${repoRoot}/`) ? [repoRoot] : [repoRoot, packages],
  };
}

/**
 * The units that run the analysis pipeline's transcriber. Locally that can be a binary AWS never
 * runs there (pocketsphinx, whisper.cpp: the local host's transcribers; pocketsphinx as moonshine's
 * word aligner in the function), so it is added to these units' views: a local-host difference,
 * not part of their contracts.
 */
const TRANSCRIBING_MODULES: readonly string[] = ['workflows/analysis/extract-chunk-signals/lambda', 'workflows/analysis/extract-chunk-signals/container'];

/**
 * The local transcriber's settings, told only to the units that run it: the configuration checks
 * its binary exists (functions/config.ts), and only their views show it.
 */
const LOCAL_TRANSCRIBER_VARIABLES = [
  'TRANSCRIBER',
  'POCKETSPHINX_BIN',
  'POCKETSPHINX_MODEL_DIR',
  'WHISPER_CPP_BIN',
  'WHISPER_MODEL',
  'SPEECH_MODEL_DIR',
] as const;

function localTranscriber(contract: RuntimeContract): string[] {
  const cfg = config();
  const binary =
    cfg.TRANSCRIBER === 'pocketsphinx'
      ? cfg.POCKETSPHINX_BIN
      : cfg.TRANSCRIBER === 'whisper-cpp'
        ? cfg.WHISPER_CPP_BIN
        : // moonshine's word aligner where the unit's contract has none (the function): the image
          // installs its own, which the view shows at the image's path (its models and runtime too).
          cfg.TRANSCRIBER === 'moonshine' && !contract.binaries.pocketsphinx
          ? cfg.POCKETSPHINX_BIN
          : undefined;
  return binary && existsSync(binary) ? [realpathSync(binary)] : [];
}

/** Bubblewrap makes a view in milliseconds; a probe still running after this has failed. */
const PROBE_TIMEOUT_MS = 10_000;

/** Node reports a working directory that does not exist as it reports a missing executable: ENOENT, `spawn <command>`. */
const NO_SUCH_DIRECTORY = '/nonexistent/media-scanner-sandbox';

/**
 * A unit's view that bubblewrap cannot make on this machine: the host's failure (a 5xx of ours, a
 * task failed on our side), never the unit's nor the customer's; its message is bubblewrap's reason.
 */
export class SandboxFailure extends Error {
  override readonly name = 'SandboxFailure';
}

export class Sandbox {
  private readonly views = new Map<string, UnitView>();
  /** Views bubblewrap has made here, by their command line: each is tried once before its first use. */
  private readonly made = new Set<string>();

  private constructor(
    private readonly facts: HostFacts,
    private readonly contracts: ReadonlyMap<string, RuntimeContract>,
  ) {}

  /** The sandbox of this host, from the environment it runs with (after the host has set it). */
  static async create(env: NodeJS.ProcessEnv = process.env): Promise<Sandbox> {
    return new Sandbox(await hostFacts(env), localContracts(env));
  }

  contractOf(unit: string): RuntimeContract {
    const contract = this.contracts.get(unit);
    if (!contract) throw new Error(`No run-time contract for unit ${unit}`);
    return contract;
  }

  viewOf(unit: string): UnitView {
    let view = this.views.get(unit);
    if (!view) {
      const contract = this.contractOf(unit);
      view = unitView(contract, this.facts, TRANSCRIBING_MODULES.includes(contract.module) ? localTranscriber(contract) : []);
      this.views.set(unit, view);
    }
    return view;
  }

  /**
   * The unit's view, once bubblewrap has made it on this machine (its runtime's `--version` inside
   * it, once per distinct view): a unit's binary that exits non-zero is then the binary's answer,
   * and a view that cannot be made is a SandboxFailure, logged with bubblewrap's reason, instead
   * of an exit status its caller would read as the media's fault. A failure is tried again at the
   * next use. Synchronous, as launch is; the probe starts nothing that needs this event loop.
   */
  private madeView(unit: string): UnitView {
    const view = this.viewOf(unit);
    const probe = bwrapArgs(view, view.runtime, ['--version'], repoRoot);
    const key = probe.join('\0');
    if (this.made.has(key)) return view;
    const run = spawnSync('bwrap', probe, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    if (run.status !== 0) {
      const reason = (run.stderr ?? '').trim() || run.error?.message || `bwrap exited with ${run.status ?? run.signal}`;
      const failure = new SandboxFailure(`The sandbox cannot make the view of ${unit} on this machine: ${reason}`);
      console.error(`local host: ${failure.message}`);
      throw failure;
    }
    this.made.add(key);
    return view;
  }

  /**
   * How to run a unit's whole process (`node <bundle>`) in its view: bubblewrap's command line,
   * and the environment: `base` (the host's configuration: table, bucket, endpoints, credentials,
   * the call recorder's variables) without the host's own binary paths, then the contract's.
   */
  unitProcess(unit: string, args: readonly string[], base: NodeJS.ProcessEnv): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
    const view = this.madeView(unit);
    const contract = this.contractOf(unit);
    const env = { ...base };
    for (const name of HOST_BINARY_VARIABLES) delete env[name];
    if (!TRANSCRIBING_MODULES.includes(contract.module)) for (const name of LOCAL_TRANSCRIBER_VARIABLES) delete env[name];
    if (contract.binaries.pocketsphinx) for (const name of ALIGNER_VARIABLES) delete env[name];
    return { file: 'bwrap', args: bwrapArgs(view, process.execPath, args, repoRoot), env: { ...env, ...view.environment } };
  }

  /**
   * The local host's launcher (adapters/child-process.ts Launch): a binary the running unit ships starts
   * at its AWS path inside the unit's view; any other fails to start with ENOENT, as on AWS. The
   * host's own children (outside any unit) start as they are.
   */
  readonly launch: Launch = (command, args, options) => {
    const unit = currentUnit();
    if (unit === units.host) return spawn(command, args, options);
    const path = this.viewOf(unit).commands.get(command);
    if (!path) return spawn(command, args, { ...options, cwd: NO_SUCH_DIRECTORY });
    const view = this.madeView(unit);
    return spawn('bwrap', bwrapArgs(view, path, args, typeof options.cwd === 'string' ? options.cwd : repoRoot), options);
  };
}
