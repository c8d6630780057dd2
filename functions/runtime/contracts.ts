/**
 * The run-time contract of every deployed unit (DESIGN §11): what AWS gives it when it runs. Lambda
 * functions (routes, authorizer, fallback, workflow tasks, outbox relay, webhook sender) and the
 * workflows' container tasks each get one, derived from the route table, the workflow table and the
 * image's Dockerfile, which stay the places where a unit's needs are declared. CDK builds function
 * settings, task definitions and volumes from these contracts (infra/constructs); the local host
 * runs each unit that touches the disk or runs a child process inside a sandbox made from the same
 * contract (functions/local/sandbox), so a unit that writes outside it, or calls a binary its image
 * or layer does not ship, fails locally as it would on AWS. Nothing else lists these facts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { POCKETSPHINX_DEFAULTS } from '../config.js';
import { consoleRoutes, routeKey, routes, type AnyRouteDefinition } from '../routes.js';
import { workflows, type ContainerTask, type WorkflowDefinition, type WorkflowTask } from '../workflows/registry.js';

/** Deployed units: what runs with a role of its own on AWS. Also the AWS call recorder's vocabulary. */
export const units = {
  /** A route's function, by route key (`POST /v1/uploads/{upload_id}/complete`). */
  route: (key: string) => `route:${key}`,
  /** The HTTP API's Lambda authorizer. */
  authorizer: 'authorizer',
  /** The function answering requests that match no route. */
  fallback: 'fallback',
  /** A Task state's function: the workflow table's workflow and placeholder. */
  task: (workflow: string, placeholder: string) => `task:${workflow}/${placeholder}`,
  /** A container task (a Fargate task role on AWS, a child process locally). */
  container: (workflow: string, placeholder: string) => `container:${workflow}/${placeholder}`,
  /** The outbox relay (the table stream's function on AWS). */
  outboxRelay: 'outbox-relay',
  /** The webhook sender (the delivery queue's function on AWS). */
  webhookSender: 'webhook-sender',
  /** A workflow's onExecutionEnded function. */
  executionEnded: (workflow: string) => `ended:${workflow}`,
  /** The Python function that resolves provider pages with yt-dlp for the routes (functions/provider-resolver). */
  providerResolver: 'provider-resolver',
  /** The console's AWS sign-in steps (public routes outside the route table: the local host signs in its own way). */
  consoleSignIn: 'console-sign-in',
  consoleCallback: 'console-callback',
  /** The local host itself (start-up reconciliation, seeding): no deployed unit, never checked. */
  host: 'host',
} as const;

export interface UnixUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** A path the unit may write to, and what it finds there when it starts. */
export interface WritablePath {
  readonly path: string;
  readonly sizeMiB: number;
  /** Owner and mode of the directory as the unit finds it: whether its user can write is theirs to say. */
  readonly owner: UnixUser;
  readonly mode: number;
}

/** Executables a unit can run, each by the path it has on AWS. */
export type ShippedBinary = 'ffmpeg' | 'ffprobe' | 'yt-dlp' | 'pocketsphinx';
/** Data directories the image's build context carries (layers/ffmpeg/Dockerfile COPY lines). */
export type StagedFiles = 'fonts' | 'detector' | 'speech';
/** Data directories the image carries, by their path on AWS: staged, or installed by a Debian package. */
export type ShippedFiles = StagedFiles | 'pocketsphinx-model';

interface ContractBase {
  readonly unit: string;
  /** The module under functions/ (no extension: `.ts`, or `.py` for a Python function) that the unit runs. */
  readonly module: string;
  readonly user: UnixUser;
  /** Everything else is read-only. */
  readonly writable: readonly WritablePath[];
  /** Executables and where they are on AWS (FFMPEG_PATH and the like point there). */
  readonly binaries: Readonly<Partial<Record<ShippedBinary, string>>>;
  readonly files: Readonly<Partial<Record<ShippedFiles, string>>>;
  /** Variables the runtime (layer or image) sets, beside the service's configuration. */
  readonly environment: Readonly<Record<string, string>>;
  readonly memoryMb: number;
}

export interface LambdaContract extends ContractBase {
  readonly kind: 'lambda';
  /** The managed runtime: every function is Node but the provider resolver, which yt-dlp (Python) needs. */
  readonly runtime: LambdaRuntime;
  /** The pinned ffmpeg build is x86-64: functions that carry its layer are too. */
  readonly architecture: 'arm64' | 'x86_64';
  readonly timeoutSeconds: number;
  /** Whether the function carries the ffmpeg layer. */
  readonly ffmpegLayer: boolean;
  /** Whether the function carries the yt-dlp layer (Debian's yt_dlp package, pure Python: any architecture). */
  readonly ytDlpLayer: boolean;
  /** Whether the function's bundle carries the local analyzer's word table, at LAMBDA_WORD_VECTORS_DIR. */
  readonly wordVectors: boolean;
  /** The reserve its concurrency comes from; undefined: the account's shared pool. */
  readonly concurrencyReserve: ConcurrencyReserve | undefined;
}

type LambdaRuntime = 'nodejs24.x' | 'python3.12';

/**
 * A share of the AWS account's regional Lambda concurrency kept for the functions the API cannot
 * live without (reserved concurrency): others can neither take it nor be throttled by their floods
 * beyond it. The deployment sizes each reserve (cdk.json, infra/deployment-context.ts).
 */
export type ConcurrencyReserve = 'authorizer' | 'essentialRoute';

export interface ContainerContract extends ContractBase, ContainerTask {
  readonly kind: 'container';
  readonly module: ContainerTask['entrypoint'];
  /** The image is shared by every container task: the task chooses its program by command. */
  readonly command: readonly string[];
  /** Fargate task storage in GiB; 20 is what every task gets without asking (and pays nothing for). */
  readonly ephemeralStorageGiB: number;
}

export type RuntimeContract = LambdaContract | ContainerContract;

const root: UnixUser = { name: 'root', uid: 0, gid: 0 };

// ---- Lambda (nodejs24.x): facts of the managed runtime ----

/** The user Lambda runs a function's code as. */
export const LAMBDA_USER: UnixUser = { name: 'sbx_user1051', uid: 993, gid: 990 };
/** Lambda's default /tmp, and what a function gets unless its table entry asks for more (ephemeralStorage). */
export const LAMBDA_DEFAULT_TMP_MIB = 512;
/** Lambda's defaults when a table entry says nothing: memory, and the HTTP API's integration limit less a second. */
const LAMBDA_DEFAULT_MEMORY_MB = 512;
const ROUTE_TIMEOUT_SECONDS = 29;
/** Where the ffmpeg layer's binaries are (Lambda mounts layers at /opt); FFMPEG_PATH and FFPROBE_PATH point there. */
export const ffmpegLayerPaths = { ffmpeg: '/opt/bin/ffmpeg', ffprobe: '/opt/bin/ffprobe' } as const;
/**
 * Where the yt-dlp layer's package is: Python functions import from /opt/python, and the resolver
 * runs it as `python -m yt_dlp` with the function's own interpreter (no executable file of its own).
 */
export const ytDlpLayerPaths = { 'yt-dlp': '/opt/python/yt_dlp' } as const;
/** Where a function that runs the analyzer finds the word table: a folder of its bundle (Lambda unpacks it at /var/task). */
export const LAMBDA_WORD_VECTORS_DIR = '/var/task/word-vectors';

interface LambdaNeeds {
  readonly module: string;
  readonly runtime?: LambdaRuntime | undefined;
  readonly ytDlp?: boolean | undefined;
  readonly memoryMb?: number | undefined;
  readonly timeoutSeconds?: number | undefined;
  readonly ffmpeg?: boolean | undefined;
  readonly scratchMiB?: number | undefined;
  readonly analyzes?: boolean | undefined;
  readonly concurrencyReserve?: ConcurrencyReserve | undefined;
}

function lambdaContract(unit: string, needs: LambdaNeeds): LambdaContract {
  const ffmpeg = needs.ffmpeg ?? false;
  const ytDlp = needs.ytDlp ?? false;
  return {
    kind: 'lambda',
    unit,
    module: needs.module,
    runtime: needs.runtime ?? 'nodejs24.x',
    user: LAMBDA_USER,
    writable: [{ path: '/tmp', sizeMiB: needs.scratchMiB ?? LAMBDA_DEFAULT_TMP_MIB, owner: LAMBDA_USER, mode: 0o700 }],
    binaries: { ...(ffmpeg ? ffmpegLayerPaths : {}), ...(ytDlp ? ytDlpLayerPaths : {}) },
    files: {},
    environment: {
      ...(ffmpeg ? { FFMPEG_PATH: ffmpegLayerPaths.ffmpeg, FFPROBE_PATH: ffmpegLayerPaths.ffprobe } : {}),
      ...(needs.analyzes ? { WORD_VECTORS_DIR: LAMBDA_WORD_VECTORS_DIR } : {}),
    },
    memoryMb: needs.memoryMb ?? LAMBDA_DEFAULT_MEMORY_MB,
    timeoutSeconds: needs.timeoutSeconds ?? ROUTE_TIMEOUT_SECONDS,
    architecture: ffmpeg ? 'x86_64' : 'arm64',
    ffmpegLayer: ffmpeg,
    ytDlpLayer: ytDlp,
    wordVectors: needs.analyzes ?? false,
    concurrencyReserve: needs.concurrencyReserve,
  };
}

/** The functions that are neither a route nor a workflow task. */
const serviceFunctions = {
  // Every request passes it (and takes its request token there): a slow table should fail it fast, not hold the client.
  [units.authorizer]: { module: 'authorizer/handler', timeoutSeconds: 10, concurrencyReserve: 'authorizer' },
  [units.fallback]: { module: 'api/not-found' },
  [units.outboxRelay]: { module: 'events/relay-outbox', timeoutSeconds: 60 },
  [units.webhookSender]: { module: 'webhooks/sender', timeoutSeconds: 60 },
  // Invoked by preflight, quote and submission, which answer within the API's 29 s: 4 s less (25 s)
  // leaves them time to invoke it and answer. yt-dlp parses pages with CPU: 1 GB buys a fuller vCPU.
  [units.providerResolver]: {
    module: 'provider-resolver/handler',
    runtime: 'python3.12',
    ytDlp: true,
    memoryMb: 1024,
    timeoutSeconds: ROUTE_TIMEOUT_SECONDS - 4,
  },
  [units.consoleSignIn]: { module: 'console/auth/sign-in', timeoutSeconds: 10 },
  // Waits on Cognito's token endpoint (10 s at most: functions/adapters/console/cognito-token-endpoint.ts).
  [units.consoleCallback]: { module: 'console/auth/callback', timeoutSeconds: 15 },
} as const satisfies Record<string, LambdaNeeds>;

// ---- The container image (layers/ffmpeg/Dockerfile) ----

/** What the image gives every container task, read from its Dockerfile. */
interface ImageFacts {
  readonly user: UnixUser;
  /** `VOLUME` paths: a Fargate bind mount there starts with the image's directory's owner and mode. */
  readonly volumes: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  /** Debian packages its `apt-get install` adds. */
  readonly packages: readonly string[];
}

/**
 * What each Debian package the image may install gives a task, where Debian puts it: yt-dlp for
 * source acquisition; pocketsphinx's CLI and its US English model, the moonshine transcriber's
 * word aligner (functions/adapters/transcribers/word-timing.ts).
 */
interface PackageGives {
  readonly binaries?: Partial<Record<ShippedBinary, string>>;
  readonly files?: Partial<Record<ShippedFiles, string>>;
}
const debianPackages: Readonly<Record<string, PackageGives>> = {
  'yt-dlp': { binaries: { 'yt-dlp': '/usr/bin/yt-dlp' } },
  pocketsphinx: { binaries: { pocketsphinx: POCKETSPHINX_DEFAULTS.bin } },
  'pocketsphinx-en-us': { files: { 'pocketsphinx-model': POCKETSPHINX_DEFAULTS.modelDir } },
};

/** Users of the base image (node:24-bookworm-slim) by name. */
const imageUsers: Readonly<Record<string, UnixUser>> = { root, node: { name: 'node', uid: 1000, gid: 1000 } };
/** Directories of the base image the image's volumes may name: owner and mode there. */
const imageDirectories: Readonly<Record<string, { owner: UnixUser; mode: number }>> = { '/tmp': { owner: root, mode: 0o1777 } };

export const DOCKERFILE = join(import.meta.dirname, '..', '..', 'layers', 'ffmpeg', 'Dockerfile');

/** Reads the facts a task can rely on from the Dockerfile (its continuation lines joined), the one place they are declared. */
export function imageFacts(dockerfile: string = readFileSync(DOCKERFILE, 'utf8')): ImageFacts {
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const args = (keyword: string) =>
    instructions.filter((line) => line.toUpperCase().startsWith(`${keyword} `)).map((line) => line.slice(keyword.length + 1).trim());
  const userName = args('USER').at(-1) ?? 'root';
  const user = imageUsers[userName.split(':')[0] ?? ''];
  if (!user) throw new Error(`${DOCKERFILE}: USER ${userName} is not a user of the base image (${Object.keys(imageUsers).join(', ')})`);
  const volumes = args('VOLUME').flatMap((value) => (value.startsWith('[') ? (JSON.parse(value) as string[]) : value.split(/\s+/)));
  const environment = Object.fromEntries(
    args('ENV').flatMap((value) =>
      [...value.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)].map(([, name, raw]) => [name, raw?.replace(/^"|"$/g, '')] as [string, string]),
    ),
  );
  const packages = args('RUN').flatMap((value) => {
    const install = /apt-get install ([^&;|]*)/.exec(value)?.[1] ?? '';
    return install.split(/\s+/).filter((word) => word && !word.startsWith('-'));
  });
  return { user, volumes, environment, packages };
}

/** Scratch space every container task has at /tmp: Fargate's 20 GiB of task storage unless the entry asks for more. */
const FARGATE_DEFAULT_STORAGE_GIB = 20;
const CONTAINER_SCRATCH = '/tmp';
/** Where the image's entrypoints are: one bundle per container task, chosen by command. */
export const imageTaskPath = (task: ContainerTask): string => `/task/${task.containerName}.mjs`;

/**
 * A Fargate bind mount: Fargate creates it owned by root, mode 0755, unless the image declares a
 * VOLUME at that path, in which case it starts as the image's directory (ECS, "Bind mounts").
 */
function fargateBindMount(image: ImageFacts, path: string, sizeMiB: number): WritablePath {
  const declared = image.volumes.includes(path) ? imageDirectories[path] : undefined;
  return { path, sizeMiB, ...(declared ?? { owner: root, mode: 0o755 }) };
}

function containerContract(unit: string, task: ContainerTask, image: ImageFacts): ContainerContract {
  const storageGiB = task.scratchGiB ?? FARGATE_DEFAULT_STORAGE_GIB;
  const env = image.environment;
  const installed = image.packages.map((name) => debianPackages[name] ?? {});
  const fromPackages = <K extends string>(gives: (p: PackageGives) => Partial<Record<K, string>> | undefined) =>
    installed.reduce<Partial<Record<K, string>>>((all, p) => ({ ...all, ...gives(p) }), {});
  const binaries: Partial<Record<ShippedBinary, string>> = {
    ...(env.FFMPEG_PATH ? { ffmpeg: env.FFMPEG_PATH } : {}),
    ...(env.FFPROBE_PATH ? { ffprobe: env.FFPROBE_PATH } : {}),
    ...fromPackages((p) => p.binaries),
  };
  const files: Partial<Record<ShippedFiles, string>> = {
    ...(env.CAPTION_FONTS_DIR ? { fonts: env.CAPTION_FONTS_DIR } : {}),
    ...(env.FACE_MODEL_DIR ? { detector: env.FACE_MODEL_DIR } : {}),
    ...(env.SPEECH_MODEL_DIR ? { speech: env.SPEECH_MODEL_DIR } : {}),
    ...fromPackages((p) => p.files),
  };
  return {
    ...task,
    kind: 'container',
    unit,
    module: task.entrypoint,
    user: image.user,
    writable: [fargateBindMount(image, CONTAINER_SCRATCH, storageGiB * 1024)],
    binaries,
    files,
    environment: env,
    command: [imageTaskPath(task)],
    ephemeralStorageGiB: storageGiB,
  };
}

/** Every deployed unit's contract, by unit name. */
export function runtimeContracts(image: ImageFacts = imageFacts()): ReadonlyMap<string, RuntimeContract> {
  const contracts = new Map<string, RuntimeContract>();
  const add = (contract: RuntimeContract) => contracts.set(contract.unit, contract);
  // A console twin runs its API route's function: only the console routes add functions.
  for (const route of [...routes, ...consoleRoutes] as readonly AnyRouteDefinition[]) {
    add(
      lambdaContract(units.route(routeKey(route)), {
        module: route.handler,
        ffmpeg: route.ffprobe,
        concurrencyReserve: route.essential ? 'essentialRoute' : undefined,
      }),
    );
  }
  for (const [unit, needs] of Object.entries(serviceFunctions)) add(lambdaContract(unit, needs));
  const taskNeeds = (task: WorkflowTask): LambdaNeeds => ({ module: task.handler, ...task });
  for (const [name, workflow] of Object.entries(workflows as Readonly<Record<string, WorkflowDefinition>>)) {
    for (const [placeholder, task] of Object.entries(workflow.tasks)) add(lambdaContract(units.task(name, placeholder), taskNeeds(task)));
    if (workflow.onExecutionEnded) add(lambdaContract(units.executionEnded(name), taskNeeds(workflow.onExecutionEnded)));
    for (const [placeholder, task] of Object.entries(workflow.containerTasks ?? {})) add(containerContract(units.container(name, placeholder), task, image));
  }
  return contracts;
}

let loaded: ReadonlyMap<string, RuntimeContract> | undefined;

/** The contract of one unit; throws for a name that is no deployed unit. */
function contractOf(unit: string): RuntimeContract {
  const contract = (loaded ??= runtimeContracts()).get(unit);
  if (!contract) throw new Error(`No run-time contract for unit ${unit}`);
  return contract;
}

/** Narrowing helpers for the two kinds, with the unit named in the error. */
export function lambdaContractOf(unit: string): LambdaContract {
  const contract = contractOf(unit);
  if (contract.kind !== 'lambda') throw new Error(`${unit} is a container task, not a function`);
  return contract;
}

export function containerContractOf(unit: string): ContainerContract {
  const contract = contractOf(unit);
  if (contract.kind !== 'container') throw new Error(`${unit} is a function, not a container task`);
  return contract;
}

/** Whether the unit's user may create files in a writable path, by its owner and mode (root may always). */
export function canWrite(user: UnixUser, path: WritablePath): boolean {
  if (user.uid === 0) return true;
  const bits = path.owner.uid === user.uid ? 0o200 : path.owner.gid === user.gid ? 0o020 : 0o002;
  return (path.mode & bits) !== 0;
}
