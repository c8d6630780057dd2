import * as z from '../shared/zod.js';
import { startLocalHost } from './host.js';
import { defaultServerLimits } from './server.js';
import { chooseLocalTranscriber } from './transcriber-default.js';
import { BUBBLEWRAP_INSTALL } from './sandbox/sandbox.js';

/** `npm start`: the embedded local host. Settings come from the environment, checked here. */
const settings = z
  .object({
    LOCAL_DATA_DIR: z._default(z.string().check(z.minLength(1)), '.local'),
    PORT: z._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(65_535)), 4000),
    LOCAL_API_KEY: z.optional(z.string()),
    LOCAL_REQUEST_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.minimum(100)), defaultServerLimits.requestTimeoutMs),
    LOCAL_MAX_CONNECTIONS_PER_CLIENT: z._default(z.coerce.number().check(z.int(), z.minimum(1)), defaultServerLimits.maxConnectionsPerClient),
    // `off`: no sandbox even where bubblewrap runs (the integration and reliability suites' hosts; the parity suite's are sandboxed).
    LOCAL_SANDBOX: z._default(z.enum(['auto', 'off']), 'auto'),
  })
  .parse(process.env);

// Before the host reads its configuration; its task processes inherit the choice.
const transcriberLine = chooseLocalTranscriber(process.env);

try {
  const host = await startLocalHost({
    dataDir: settings.LOCAL_DATA_DIR,
    port: settings.PORT,
    apiKey: settings.LOCAL_API_KEY,
    limits: { requestTimeoutMs: settings.LOCAL_REQUEST_TIMEOUT_MS, maxConnectionsPerClient: settings.LOCAL_MAX_CONNECTIONS_PER_CLIENT },
    sandbox: settings.LOCAL_SANDBOX !== 'off',
  });
  // Before the banner: whoever reads it (a terminal, a test) may signal the host at once.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local host...`);
    host.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The terminal went away: a clean stop too (a host that dies anyway takes its children along).
  process.on('SIGHUP', () => stop('SIGHUP'));
  console.log(`Media Scanner Service (local host) listening on ${host.baseUrl}`);
  console.log(`Data directory: ${host.dataDir}`);
  console.log(`Default account: ${host.accountId}`);
  console.log(`API key: ${host.apiKey}`);
  console.log(transcriberLine);
  if (host.sandboxed) console.log('Sandbox: every unit runs inside its AWS run-time contract (bubblewrap): its writable paths, user and binaries only.');
  else if (settings.LOCAL_SANDBOX === 'off') console.warn('WARNING: LOCAL_SANDBOX=off: units run unconfined, not inside their AWS run-time contracts.');
  else
    console.warn(
      `WARNING: bubblewrap is missing, so units run unconfined, not inside their AWS run-time contracts; install it (${BUBBLEWRAP_INSTALL}) and run npm start again.`,
    );
  console.log(`Try: curl -H "Authorization: Bearer ${host.apiKey}" ${host.baseUrl}/v1/account`);
  console.log(`Console: ${host.consoleUrl}${host.consoleBuilt ? '' : ' (not built in this checkout: its routes answer, its pages do not)'}`);
  console.log(`Sign in (one use, 15 minutes): ${host.signInLink}`);
  console.log('Another link: npm run admin -- console-link [--account acct_...]');
  if (process.env.LOCAL_ALLOW_LOOPBACK_TARGETS === '1') {
    // DESIGN §9: said loudly, since it opens outbound fetches (sources, webhooks) to this machine.
    console.warn('WARNING: LOCAL_ALLOW_LOOPBACK_TARGETS=1: source URLs and webhook endpoints may target loopback addresses, over plain http.');
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
