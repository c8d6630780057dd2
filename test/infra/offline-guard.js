/**
 * `node --import ./offline-guard.js`: a Node process with no network. Every TCP or UDP connection
 * and every DNS lookup throws (sockets on a path, IPC, still work), and so does fetch. Loaded
 * through NODE_OPTIONS (test/infra/offline.ts), it reaches every Node process started below,
 * npm and npx among them. The infra tests' shared synthesis runs under it, so a synth that tried
 * to download anything (say, `npm pack` of a binary package) fails.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

/** Set in every guarded process: the synthesis reports it, so a test can tell the guard was on. */
const OFFLINE_GUARD = Symbol.for('media-scanner.offline-guard');

const refuse = (what) => {
  const error = new Error(`offline-guard: network access refused (${what}): \`cdk synth\` must not download anything`);
  error.code = 'EOFFLINEGUARD';
  return error;
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const [first] = args;
  const options = Array.isArray(first) ? first[0] : first;
  // As net decides: a (non-empty) path is a local socket, anything else is TCP.
  const path = typeof options === 'object' && options !== null ? options.path : typeof first === 'string' && !/^\d+$/.test(first) ? first : undefined;
  if (path) return connect.apply(this, args);
  const target = typeof options === 'object' && options !== null ? `${options.host ?? 'localhost'}:${options.port}` : `port ${String(first)}`;
  throw refuse(`connect ${target}`);
};

dgram.Socket.prototype.send = function guardedSend() {
  throw refuse('udp send');
};

const lookup = (hostname) => {
  throw refuse(`dns lookup ${hostname}`);
};
dns.lookup = lookup;
dns.promises.lookup = async (hostname) => lookup(hostname);
for (const method of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveSrv', 'resolveTxt']) {
  dns[method] = (hostname) => lookup(hostname);
  dns.promises[method] = async (hostname) => lookup(hostname);
}

globalThis.fetch = async (input) => {
  throw refuse(`fetch ${typeof input === 'object' && input !== null && 'url' in input ? input.url : String(input)}`);
};

globalThis[OFFLINE_GUARD] = true;
