import { parseArgs } from 'node:util';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from '../shared/zod.js';
import { addCredits, createAccount, revokeApiKey, setEventDelivery, setRequestRate, trustHost } from '../domain/accounts/accounts.js';
import { ApiError, notFound } from '../domain/errors.js';
import { issueSignInToken, SIGN_IN_LINK_MINUTES, signInLink } from '../domain/accounts/sign-in-links.js';
import { dynamoSignInLinkStore } from '../adapters/table/sign-in-link-store.js';
import type { AccountStore } from '../domain/accounts/ports.js';
import { planNames } from '../domain/accounts/plans.js';
import { dynamoAccountStore } from '../adapters/table/account-store.js';
import { dynamoConsoleSessionStore } from '../adapters/table/console-session-store.js';
import { cognitoOwnerDirectory } from '../adapters/console/cognito-owner-directory.js';
import { disableOwner, enableOwner, moveOwner, signOutOwner, type OwnerDirectory } from '../domain/console/owners.js';
import { localOwner, localOwnerDirectory } from '../local/console-host.js';
import { localDocumentClient, readRunningHost, stateFile } from '../local/host.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * Operator CLI (key creation is not an API operation). By default it works on the running local
 * host under LOCAL_DATA_DIR; with --table and --region, on a deployed table.
 */
const usage = `Usage: npm run admin -- accounts <command> [options]
  create --plan <${planNames.join('|')}> --credits <n> [--max-observations <n>] [--requests-per-second <n> --request-burst <n>]
  request-rate --requests-per-second <n> --request-burst <n> [--account <acct_...>]
  revoke-key --api-key <sk_...>
  add-credits --account <acct_...> --credits <n>
  trust-host <hostname> [--account <acct_...>]
  event-delivery --on|--off [--account <acct_...>]
Usage: npm run admin -- console-link [--account <acct_...>]
  prints a one-time console sign-in link of the running local host (15 minutes, one use)
Usage: npm run admin -- owners <command> (--account <acct_...> | --email <address> --user-pool-id <id> --table NAME --region R)
  sign-out          ends every console session of the owner
  disable           no sign-in from now on, and every session of theirs ends
  enable            lets a disabled owner sign in again
  move --to <acct>  (AWS) their next sign-in is to that account; their sessions end
  The local host's owner of an account is named by --account (default: its default account); on AWS an owner
  is named by their sign-in email in the user pool (ConsoleUserPoolId).
Targets the running local host (LOCAL_DATA_DIR, default .local), following its LOCAL_ALLOW_LOOPBACK_TARGETS,
unless --table NAME --region R is given. Prints one JSON object; its "host" names where it acted.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    plan: { type: 'string' },
    credits: { type: 'string' },
    'max-observations': { type: 'string' },
    'requests-per-second': { type: 'string' },
    'request-burst': { type: 'string' },
    'api-key': { type: 'string' },
    account: { type: 'string' },
    email: { type: 'string' },
    'user-pool-id': { type: 'string' },
    to: { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    on: { type: 'boolean' },
    off: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

const dataDir = resolve(process.env.LOCAL_DATA_DIR ?? '.local');
const positiveInt = (name: string) =>
  z.coerce.number({ error: `--${name} must be a number` }).check(z.int(), z.positive(`--${name} must be a positive integer`));

/** Where the commands act, as the output names it, and whether loopback names may be trusted there (DESIGN §9). */
interface Target {
  doc: DynamoDBDocumentClient;
  tableName: string;
  host: { base_url: string; data_dir: string } | { table: string; region: string };
  allowLoopback: boolean;
}

async function target(): Promise<Target> {
  if (values.table) {
    if (!values.region) throw new Error('--table needs --region');
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: values.region }));
    return { doc, tableName: values.table, host: { table: values.table, region: values.region }, allowLoopback: false };
  }
  const running = await readRunningHost(dataDir);
  if (!running) throw new Error(`No local host is running under ${dataDir}: start it with \`npm start\`, or pass --table NAME --region R.`);
  return {
    doc: localDocumentClient(running.dynamodb_endpoint),
    tableName: running.table,
    host: { base_url: running.base_url, data_dir: dataDir },
    // The running host's own setting: what it will fetch is what it may be told to trust.
    allowLoopback: running.allow_loopback_targets,
  };
}

/** A contracted request rate (both options, or neither: the plan's). */
function requestRate(): { perSecond: number; burst: number } | undefined {
  const perSecond = values['requests-per-second'];
  const burst = values['request-burst'];
  if (perSecond === undefined && burst === undefined) return undefined;
  if (perSecond === undefined || burst === undefined) throw new Error('--requests-per-second and --request-burst go together');
  return { perSecond: positiveInt('requests-per-second').parse(perSecond), burst: positiveInt('request-burst').parse(burst) };
}

async function defaultAccount(): Promise<string> {
  if (values.account) return values.account;
  if (values.table) throw new Error('--account is required with --table');
  const state = JSON.parse(await readFile(stateFile(dataDir), 'utf8')) as { account_id: string };
  return state.account_id;
}

async function requireExistingAccount(store: Pick<AccountStore, 'getAccount'>, accountId: string): Promise<void> {
  if (!(await store.getAccount(accountId))) throw notFound('account');
}

async function main(): Promise<unknown> {
  const [group, command, argument] = positionals;
  if (!values.help && group === 'console-link') return consoleLink();
  if (!values.help && group === 'owners' && command) return owners(command);
  if (values.help || group !== 'accounts' || !command) throw new Error(usage);
  const acting = await target();
  return { ...(await run(command, argument, acting)), host: acting.host };
}

/** The table as the admin CLI's stores see it: it lists nothing, so it issues no cursors. */
const tableOf = ({ doc, tableName }: Target) => ({
  doc,
  tableName,
  cursors: () => Promise.reject(new Error('The admin CLI lists nothing, so it issues no cursors')),
});

/** The local host's console sign-in (on AWS, account owners sign in with Cognito: docs/console.md). */
async function consoleLink(): Promise<Record<string, unknown>> {
  if (values.table) throw new Error('console-link is for the local host: on AWS, account owners sign in with the user pool (docs/console.md).');
  const acting = await target();
  const { doc, tableName, host } = acting;
  const accountId = await defaultAccount();
  const store = dynamoAccountStore(tableOf(acting));
  await requireExistingAccount(store, accountId);
  if ((await dynamoConsoleSessionStore(tableOf(acting)).standing(localOwner(accountId))).disabled) {
    throw new Error(`The owner of ${accountId} is disabled: \`npm run admin -- owners enable --account ${accountId}\` first.`);
  }
  const token = await issueSignInToken(dynamoSignInLinkStore({ doc, tableName }), accountId);
  const { base_url } = host as { base_url: string };
  return { account_id: accountId, sign_in_link: signInLink(base_url, token), expires_in_minutes: SIGN_IN_LINK_MINUTES, host };
}

/**
 * A console owner's sessions and standing (domain/console/owners.ts): on the running local host, the
 * account's local owner; on AWS, the user pool's owner by email, changed in the pool and the table.
 */
async function owners(command: string): Promise<Record<string, unknown>> {
  const acting = await target();
  const accounts = dynamoAccountStore(tableOf(acting));
  const sessions = dynamoConsoleSessionStore(tableOf(acting));
  let directory: OwnerDirectory;
  let name: string;
  if (values.table) {
    if (!values.email || !values['user-pool-id'])
      throw new Error('On AWS, owners commands name the owner with --email and the pool with --user-pool-id (ConsoleUserPoolId).');
    directory = cognitoOwnerDirectory(new CognitoIdentityProviderClient({ region: values.region }), values['user-pool-id']);
    name = values.email;
  } else {
    directory = localOwnerDirectory;
    name = await defaultAccount();
    await requireExistingAccount(accounts, name);
  }
  const named = values.table ? { email: name } : { account_id: name };
  switch (command) {
    case 'sign-out':
      return { ...named, owner: await signOutOwner(directory, sessions, name), sessions_ended: true, host: acting.host };
    case 'disable':
      return { ...named, owner: await disableOwner(directory, sessions, name), disabled: true, sessions_ended: true, host: acting.host };
    case 'enable':
      return { ...named, owner: await enableOwner(directory, sessions, name), disabled: false, host: acting.host };
    case 'move': {
      if (!values.to) throw new Error('move needs --to <acct_...>');
      return {
        ...named,
        owner: await moveOwner(directory, sessions, accounts, name, values.to),
        account_id: values.to,
        sessions_ended: true,
        host: acting.host,
      };
    }
    default:
      throw new Error(usage);
  }
}

async function run(command: string, argument: string | undefined, acting: Target): Promise<Record<string, unknown>> {
  const { allowLoopback } = acting;
  const store = dynamoAccountStore(tableOf(acting));
  switch (command) {
    case 'create': {
      const plan = z.enum(planNames, { error: `--plan must be one of ${planNames.join(', ')}` }).parse(values.plan);
      const credits = z.coerce
        .number()
        .check(z.int(), z.minimum(0, '--credits must be 0 or more'))
        .parse(values.credits ?? '0');
      const maxObservations = values['max-observations'] ? positiveInt('max-observations').check(z.maximum(50)).parse(values['max-observations']) : undefined;
      const { account, apiKey } = await createAccount(store, { plan, credits, maxObservations, requestRate: requestRate() });
      return { account_id: account.accountId, api_key: apiKey };
    }
    case 'request-rate': {
      const rate = requestRate();
      if (!rate) throw new Error('request-rate needs --requests-per-second and --request-burst');
      const accountId = await defaultAccount();
      await setRequestRate(store, accountId, rate);
      return { account_id: accountId, requests_per_second: rate.perSecond, request_burst: rate.burst };
    }
    case 'revoke-key': {
      if (!values['api-key']) throw new Error('revoke-key needs --api-key');
      await revokeApiKey(store, values['api-key']);
      return { revoked: true };
    }
    case 'add-credits': {
      const accountId = await defaultAccount();
      const balance = await addCredits(store, accountId, positiveInt('credits').parse(values.credits));
      return { account_id: accountId, balance_credits: balance };
    }
    case 'trust-host': {
      if (!argument) throw new Error('trust-host needs a hostname');
      const accountId = await defaultAccount();
      return { account_id: accountId, trusted_hosts: await trustHost(store, accountId, argument, { allowLoopback }) };
    }
    case 'event-delivery': {
      // SPEC Events: delivery is optional per account; off, endpoint creation answers 503 and nothing is sent.
      if (Boolean(values.on) === Boolean(values.off)) throw new Error('event-delivery needs exactly one of --on and --off');
      const accountId = await defaultAccount();
      const enabled = Boolean(values.on);
      await setEventDelivery(store, accountId, enabled);
      return { account_id: accountId, event_delivery_enabled: enabled };
    }
    default:
      throw new Error(usage);
  }
}

try {
  console.log(JSON.stringify(await main()));
} catch (error) {
  const message =
    error instanceof z.core.$ZodError
      ? error.issues.map((i) => i.message).join('; ')
      : error instanceof ApiError || error instanceof Error
        ? error.message
        : String(error);
  console.error(message);
  process.exit(1);
}
