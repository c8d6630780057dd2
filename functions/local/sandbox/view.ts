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
}

export interface UnitView {
  readonly unit: string;
  readonly user: UnixUser;
  /** Emptied (read-only tmpfs) before anything is shown in them. */
  readonly hidden: readonly string[];
  /** Host files of shipped binaries at their local paths: a unit runs them only by their AWS paths. */
  readonly masked: readonly string[];
  readonly writable: readonly WritablePath[];
  readonly binds: readonly Bind[];
  readonly writableBinds: readonly string[];
  /** Host path of a binary -> the path it has in the view, for the binaries the unit ships. */
  readonly commands: ReadonlyMap<string, string>;
  /** The contract's environment (FFMPEG_PATH=/opt/bin/ffmpeg and the like). */
  readonly environment: Readonly<Record<string, string>>;
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
  return {
    unit: contract.unit,
    user: contract.user,
    hidden: facts.executableDirs,
    // Those in a hidden directory or a writable path's tmpfs are gone already.
    masked: Object.values(facts.binaries).filter((path) => !under(path, [...facts.executableDirs, ...contract.writable.map((w) => w.path)])),
    writable: contract.writable,
    binds: dedupe([...binaryBinds, ...fileBinds, ...localBinds]),
    writableBinds: facts.addedWritable,
    commands: new Map([
      ...shipped.flatMap(([binary, path]) => [[facts.binaries[binary] ?? path, path] as const, [path, path] as const]),
      ...(python ? [[runtime, runtime] as const] : []),
    ]),
    environment: contract.environment,
  };
}

const dedupe = (binds: Bind[]): Bind[] => [...new Map(binds.map((bind) => [bind.path, bind])).values()];
const under = (path: string, dirs: readonly string[]) => dirs.some((dir) => path.startsWith(`${dir}/`));

/**
 * The bubblewrap arguments that run `command` in `view`: the host's root read-only (writing there
 * fails with EROFS, as on a read-only root filesystem), the unit's user, its writable paths as
 * tmpfs of the declared size and mode, executables hidden except what the unit ships, a pid
 * namespace so that stopping the unit stops everything it started, and the network kept.
 */
export function bwrapArgs(view: UnitView, command: string, args: readonly string[], cwd: string): string[] {
  const octal = (mode: number) => mode.toString(8).padStart(4, '0');
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
    ...view.hidden.flatMap((dir) => ['--tmpfs', dir]),
    ...view.masked.flatMap((file) => ['--ro-bind', '/dev/null', file]),
    ...view.writable.flatMap((w) => ['--perms', octal(w.mode), '--size', String(w.sizeMiB * 1024 * 1024), '--tmpfs', w.path]),
    ...view.binds.flatMap((bind) => ['--ro-bind', bind.source, bind.path]),
    ...view.writableBinds.flatMap((file) => ['--bind', file, file]),
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
