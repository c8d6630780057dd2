/**
 * What one unit sees when the local host runs it (DESIGN §11): its run-time contract laid over
 * this machine. A pure function of the contract and the machine's facts (HostFacts), turned into a
 * bubblewrap command line by bwrapArgs; sandbox.ts gathers the facts and runs it.
 */
import { join } from 'node:path';
import { canWrite, type RuntimeContract, type ShippedBinary, type ShippedFiles, type UnixUser, type WritablePath } from '../../runtime/contracts.js';

/** A host file or directory shown read-only at `path`. */
export interface Bind {
  readonly source: string;
  readonly path: string;
}

/** What this machine has that a view is made of. */
export interface HostFacts {
  /** Where each binary a contract can name is here (the npm ffmpeg, the yt-dlp or its stand-in); absent when there is none. */
  readonly binaries: Readonly<Partial<Record<ShippedBinary, string>>>;
  /** What a binary needs beside itself to start: a script's interpreter, bound where its first line names it. */
  readonly interpreters: Readonly<Partial<Record<ShippedBinary, readonly Bind[]>>>;
  /** The files behind each data directory an image carries, by name. */
  readonly files: Readonly<Record<ShippedFiles, readonly { readonly name: string; readonly source: string }[]>>;
  /** Directories holding executables (PATH, the usual bin directories, /opt): each becomes empty. */
  readonly executableDirs: readonly string[];
  /** Node, which runs every unit's code: visible at its own path (the image has it at /usr/local/bin/node). */
  readonly node: string;
  /** Python, the runtime of the Python functions (the provider resolver), visible at its own path in their views only. */
  readonly python: string;
  /** Host files the local host adds to every view, writable (the AWS call recorder's log). */
  readonly addedWritable: readonly string[];
  /**
   * Host directories every unit reads where they are (the checkout, whose code and bundles it runs,
   * and the real folder of its node_modules): shown read-only at their own paths, even where a
   * hidden directory or a writable path's tmpfs covers them (a checkout under /tmp).
   */
  readonly inPlace: readonly string[];
}

export interface UnitView {
  readonly unit: string;
  readonly user: UnixUser;
  /** Emptied (read-only tmpfs) before anything is shown in them. */
  readonly hidden: readonly string[];
  /** Host files of shipped binaries at their local paths: a unit runs them only by their AWS paths. */
  readonly masked: readonly string[];
  readonly writable: readonly WritablePath[];
  /** Host directories read in place (HostFacts.inPlace) that a hidden directory or a writable path covers: bound back over it. */
  readonly shown: readonly string[];
  readonly binds: readonly Bind[];
  readonly writableBinds: readonly string[];
  /** Host path of a binary -> the path it has in the view, for the binaries the unit ships. */
  readonly commands: ReadonlyMap<string, string>;
  /** The contract's environment (FFMPEG_PATH=/opt/bin/ffmpeg and the like). */
  readonly environment: Readonly<Record<string, string>>;
  /** The unit's runtime (Node, or Python for a Python function), at its host path. */
  readonly runtime: string;
}

/**
 * The view of `contract` on a machine with `facts`. `extra`: binaries the local host runs in this
 * unit where AWS runs something else (the local transcriber), shown at their own paths.
 */
export function unitView(contract: RuntimeContract, facts: HostFacts, extra: readonly string[] = []): UnitView {
  const shipped = Object.entries(contract.binaries) as [ShippedBinary, string][];
  const binaryBinds = shipped.flatMap(([binary, path]) => {
    const source = facts.binaries[binary];
    return source ? [{ source, path }, ...(facts.interpreters[binary] ?? [])] : [];
  });
  const fileBinds = (Object.entries(contract.files) as [ShippedFiles, string][]).flatMap(([kind, dir]) =>
    facts.files[kind].map(({ name, source }) => ({ source, path: join(dir, name) })),
  );
  // The unit's runtime: Node, or Python for a Python function, which the local host starts as a command (Lambda starts it on AWS).
  const python = contract.kind === 'lambda' && contract.runtime === 'python3.12';
  const runtime = python ? facts.python : facts.node;
  const localBinds = [runtime, ...extra].map((path) => ({ source: path, path }));
  const writablePaths = contract.writable.map((w) => w.path);
  const covering = [...facts.executableDirs, ...writablePaths];
  const shown = facts.inPlace.filter((dir) => covering.some((cover) => within(dir, cover)));
  return {
    unit: contract.unit,
    user: contract.user,
    // A directory a writable path's tmpfs empties already needs no tmpfs of its own (unless it is in a folder shown again).
    hidden: facts.executableDirs.filter((dir) => showsHost(dir, [...facts.executableDirs.filter((other) => other !== dir), ...writablePaths], shown)),
    masked: Object.values(facts.binaries).filter((path) => showsHost(path, covering, shown)),
    writable: contract.writable,
    shown,
    binds: dedupe([...binaryBinds, ...fileBinds, ...localBinds]),
    writableBinds: facts.addedWritable,
    commands: new Map([
      ...shipped.flatMap(([binary, path]) => [[facts.binaries[binary] ?? path, path] as const, [path, path] as const]),
      ...(python ? [[runtime, runtime] as const] : []),
    ]),
    environment: contract.environment,
    runtime,
  };
}

const dedupe = (binds: Bind[]): Bind[] => [...new Map(binds.map((bind) => [bind.path, bind])).values()];
/** Whether `path` is `dir` or lies inside it. */
const within = (path: string, dir: string): boolean => path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
/** Path segments: a mount at a path must come after every mount at a folder holding it, or that mount hides it. */
const depthOf = (path: string): number => path.split('/').filter(Boolean).length;

/**
 * Whether the host's own file at `path` is what a unit sees there, given the tmpfs mounts at
 * `covering` and the folders `shown` again over them: the innermost of those that holds it decides.
 */
function showsHost(path: string, covering: readonly string[], shown: readonly string[]): boolean {
  const deepest = (dirs: readonly string[]) => Math.max(-1, ...dirs.filter((dir) => within(path, dir)).map(depthOf));
  const cover = deepest(covering);
  return cover < 0 || deepest(shown) >= cover;
}

/**
 * The bubblewrap arguments that run `command` in `view`: the host's root read-only (writing there
 * fails with EROFS, as on a read-only root filesystem), the unit's user, its writable paths as
 * tmpfs of the declared size and mode, executables hidden except what the unit ships, a pid
 * namespace so that stopping the unit stops everything it started, and the network kept.
 */
export function bwrapArgs(view: UnitView, command: string, args: readonly string[], cwd: string): string[] {
  const octal = (mode: number) => mode.toString(8).padStart(4, '0');
  // Each mount hides what lies under its path: listed by depth (stable: a tmpfs before what is shown
  // again over it at the same path), every mount comes after those at the folders holding it.
  const mounts = [
    ...view.hidden.map((dir) => ({ path: dir, args: ['--tmpfs', dir] })),
    ...view.masked.map((file) => ({ path: file, args: ['--ro-bind', '/dev/null', file] })),
    ...view.writable.map((w) => ({ path: w.path, args: ['--perms', octal(w.mode), '--size', String(w.sizeMiB * 1024 * 1024), '--tmpfs', w.path] })),
    ...view.shown.map((dir) => ({ path: dir, args: ['--ro-bind', dir, dir] })),
    ...view.binds.map((bind) => ({ path: bind.path, args: ['--ro-bind', bind.source, bind.path] })),
    ...view.writableBinds.map((file) => ({ path: file, args: ['--bind', file, file] })),
  ].sort((a, b) => depthOf(a.path) - depthOf(b.path));
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    // As root on the host, the unit's user maps to root: every host file is then its own, so
    // "not writable" is modelled by read-only mounts, never by ownership.
    '--unshare-user',
    '--uid',
    String(view.user.uid),
    '--gid',
    String(view.user.gid),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((mount) => mount.args),
    // Last: bubblewrap creates the mount points above inside these before they turn read-only.
    ...view.hidden.flatMap((dir) => ['--remount-ro', dir]),
    ...view.writable.filter((w) => !canWrite(view.user, w)).flatMap((w) => ['--remount-ro', w.path]),
    '--chdir',
    cwd,
    '--',
    command,
    ...args,
  ];
}
