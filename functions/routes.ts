/**
 * The route table: the single source of truth for every HTTP route.
 * CDK creates one Lambda and one HTTP API route per entry; the local host dispatches from it.
 * `handler` is the entry module under functions/ (without extension) exporting `handler`.
 */
import type { WorkflowName } from './workflows/registry.js';

/**
 * SPEC Limits: a batch body is at most 512 KiB, checked on the raw body before parsing. Kept here,
 * not beside the batch schemas, so that every handler (which reads this table) does not build them.
 */
const MAX_BATCH_BODY_BYTES = 512 * 1024;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * How a route treats the Idempotency-Key header (SPEC "Idempotency"):
 * - accepted: honoured when present
 * - required: 400 idempotency_key_required when absent
 * - ignored: never stored (SPEC: uploads, webhook endpoints)
 * - none: reads; the header has no meaning
 */
type IdempotencyRule = 'accepted' | 'required' | 'ignored' | 'none';

/** Which table or bucket access a route's Lambda needs; CDK grants from this, nothing more. */
export type DataAccess = 'read' | 'readWrite';

/** What a route's entry says about its function, whichever authorizer it is behind. */
export interface RouteRules {
  readonly method: HttpMethod;
  readonly idempotency: IdempotencyRule;
  readonly table: DataAccess;
  /** Media bucket access (presigning a PUT needs write). Absent: no bucket access at all. */
  readonly bucket?: DataAccess;
  /** The route runs ffprobe (CDK attaches the ffmpeg layer and sets FFPROBE_PATH). */
  readonly ffprobe?: boolean;
  /** The route publishes events (CDK grants events:PutEvents on the bus). */
  readonly events?: boolean;
  /** The workflows the route starts (CDK grants states:StartExecution on exactly those and sets their ARNs). */
  readonly workflows?: readonly WorkflowName[];
  /** The route pages a list with signed cursors (CDK grants read on the cursor secret; nothing else reads it). */
  readonly cursors?: boolean;
  /** Larger bodies are refused with 413 payload_too_large before anything else reads them. */
  readonly maxBodyBytes?: number;
  /** The route wakes workflow executions waiting on a task token (CDK grants states:SendTaskSuccess). */
  readonly wakesWorkflows?: boolean;
  /** The route fetches from the internet through the outbound module (source URLs). */
  readonly outbound?: boolean;
  /** The route needs uploads, which a deployment may switch off: 503 uploads_unavailable (SPEC). */
  readonly uploads?: boolean;
  /** The route wakes the webhook sender (CDK grants sqs:SendMessage on the delivery queue and sets WEBHOOK_QUEUE_URL). */
  readonly wakesWebhookSender?: boolean;
  /**
   * The route describes provider pages with yt-dlp, which only the provider-resolver function carries
   * (CDK grants lambda:InvokeFunction on exactly that function and sets PROVIDER_RESOLVER_FUNCTION).
   */
  readonly resolvesProviderPages?: boolean;
  /**
   * Clients cannot do without it (the account, and polling work to its end): its function belongs to
   * the essential-route concurrency reserve (functions/runtime/contracts.ts), so a flood of other
   * functions in the AWS account never leaves it none.
   */
  readonly essential?: boolean;
}

/** An API route: behind the API-key authorizer, and twinned for the console (consoleTwins). */
export interface RouteDefinition extends RouteRules {
  readonly path: `/v1/${string}`;
  readonly handler: `api/${string}`;
}

export const routes = [
  { method: 'GET', path: '/v1/account', handler: 'api/account/get', idempotency: 'none', table: 'read', essential: true },
  { method: 'POST', path: '/v1/scanners', handler: 'api/scanners/create', idempotency: 'accepted', table: 'readWrite' },
  { method: 'GET', path: '/v1/scanners', handler: 'api/scanners/list', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/scanners/{scanner_id}', handler: 'api/scanners/get', idempotency: 'none', table: 'read' },
  { method: 'PATCH', path: '/v1/scanners/{scanner_id}', handler: 'api/scanners/update', idempotency: 'accepted', table: 'readWrite' },
  { method: 'GET', path: '/v1/scanners/{scanner_id}/versions', handler: 'api/scanners/list-versions', idempotency: 'none', table: 'read', cursors: true },
  // SPEC: Idempotency-Key is not honoured on upload creation, and completion is idempotent by itself.
  { method: 'POST', path: '/v1/uploads', handler: 'api/uploads/create', idempotency: 'ignored', table: 'readWrite', bucket: 'readWrite', uploads: true },
  { method: 'GET', path: '/v1/uploads', handler: 'api/uploads/list', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/uploads/{upload_id}', handler: 'api/uploads/get', idempotency: 'none', table: 'read' },
  {
    method: 'POST',
    path: '/v1/uploads/{upload_id}/complete',
    handler: 'api/uploads/complete',
    idempotency: 'ignored',
    table: 'readWrite',
    bucket: 'readWrite',
    ffprobe: true,
    uploads: true,
  },
  // A run starts the analysis workflow (DESIGN §1); the started state machine is named by config.
  {
    method: 'POST',
    path: '/v1/scanners/{scanner_id}/runs',
    handler: 'api/runs/create',
    idempotency: 'accepted',
    table: 'readWrite',
    workflows: ['analysis'],
    uploads: true,
  },
  { method: 'GET', path: '/v1/runs/{run_id}', handler: 'api/runs/get', idempotency: 'none', table: 'read', essential: true },
  { method: 'GET', path: '/v1/runs/{run_id}/observations', handler: 'api/runs/list-observations', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/observations', handler: 'api/observations/list', idempotency: 'none', table: 'read', cursors: true },
  // One-off analyses (DESIGN 10): preflight and quote measure the source; nothing is stored before submission.
  {
    method: 'POST',
    path: '/v1/sources/preflight',
    handler: 'api/sources/preflight',
    idempotency: 'none',
    table: 'read',
    ffprobe: true,
    outbound: true,
    resolvesProviderPages: true,
  },
  {
    method: 'POST',
    path: '/v1/analyses/quote',
    handler: 'api/analyses/quote',
    idempotency: 'none',
    table: 'read',
    ffprobe: true,
    outbound: true,
    resolvesProviderPages: true,
  },
  {
    method: 'POST',
    path: '/v1/analyses',
    handler: 'api/analyses/create',
    idempotency: 'accepted',
    table: 'readWrite',
    ffprobe: true,
    outbound: true,
    resolvesProviderPages: true,
    workflows: ['analysis'],
  },
  { method: 'GET', path: '/v1/analyses', handler: 'api/analyses/list', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/analyses/{analysis_id}', handler: 'api/analyses/get', idempotency: 'none', table: 'read', essential: true },
  // Cancel wakes the canceled run's workflow waiting for a slot; analysis.canceled goes out through the outbox.
  { method: 'POST', path: '/v1/analyses/{analysis_id}/cancel', handler: 'api/analyses/cancel', idempotency: 'none', table: 'readWrite', wakesWorkflows: true },
  { method: 'GET', path: '/v1/analyses/{analysis_id}/moments', handler: 'api/analyses/list-moments', idempotency: 'none', table: 'read' },
  { method: 'GET', path: '/v1/analyses/{analysis_id}/progress', handler: 'api/analyses/get-progress', idempotency: 'none', table: 'read', essential: true },
  {
    method: 'POST',
    path: '/v1/scanner-batches',
    handler: 'api/batches/create',
    idempotency: 'required',
    table: 'readWrite',
    workflows: ['batch'],
    maxBodyBytes: MAX_BATCH_BODY_BYTES,
    uploads: true,
  },
  { method: 'GET', path: '/v1/scanner-batches', handler: 'api/batches/list', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/scanner-batches/{batch_id}', handler: 'api/batches/get', idempotency: 'none', table: 'read' },
  { method: 'POST', path: '/v1/scanner-batches/{batch_id}/cancel', handler: 'api/batches/cancel', idempotency: 'none', table: 'readWrite' },
  // Webhook endpoints (DESIGN 10). SPEC: creation ignores Idempotency-Key; the other changes are safe to repeat
  // (a repeated rotation leaves the earlier new secret signing for 24 h). A URL is resolved and checked at creation and change.
  { method: 'POST', path: '/v1/webhook-endpoints', handler: 'api/webhook-endpoints/create', idempotency: 'ignored', table: 'readWrite', outbound: true },
  { method: 'GET', path: '/v1/webhook-endpoints', handler: 'api/webhook-endpoints/list', idempotency: 'none', table: 'read', cursors: true },
  { method: 'GET', path: '/v1/webhook-endpoints/{endpoint_id}', handler: 'api/webhook-endpoints/get', idempotency: 'none', table: 'read' },
  {
    method: 'PATCH',
    path: '/v1/webhook-endpoints/{endpoint_id}',
    handler: 'api/webhook-endpoints/update',
    idempotency: 'ignored',
    table: 'readWrite',
    outbound: true,
  },
  { method: 'DELETE', path: '/v1/webhook-endpoints/{endpoint_id}', handler: 'api/webhook-endpoints/delete', idempotency: 'ignored', table: 'readWrite' },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/{endpoint_id}/rotate-secret',
    handler: 'api/webhook-endpoints/rotate-secret',
    idempotency: 'ignored',
    table: 'readWrite',
  },
  // The test event goes out through the host's event publisher, like every event; nothing is stored.
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/{endpoint_id}/test',
    handler: 'api/webhook-endpoints/send-test',
    idempotency: 'none',
    table: 'read',
    events: true,
  },
  // The delivery log (DESIGN 10); a retry reopens a failed delivery and wakes the sender through its queue.
  { method: 'GET', path: '/v1/webhook-deliveries', handler: 'api/webhook-deliveries/list', idempotency: 'none', table: 'read', cursors: true },
  {
    method: 'POST',
    path: '/v1/webhook-deliveries/{delivery_id}/retry',
    handler: 'api/webhook-deliveries/retry',
    idempotency: 'none',
    table: 'readWrite',
    wakesWebhookSender: true,
  },
  // Renders (DESIGN 10): presets are static; creation starts the render workflow; reads sign asset downloads.
  { method: 'GET', path: '/v1/render-presets', handler: 'api/render-presets/get', idempotency: 'none', table: 'read' },
  { method: 'POST', path: '/v1/renders', handler: 'api/renders/create', idempotency: 'accepted', table: 'readWrite', workflows: ['render'] },
  { method: 'GET', path: '/v1/renders', handler: 'api/renders/list', idempotency: 'none', table: 'read', bucket: 'read', cursors: true },
  { method: 'GET', path: '/v1/renders/{render_id}', handler: 'api/renders/get', idempotency: 'none', table: 'read', bucket: 'read' },
  // The OpenAPI document (npm run openapi), bundled into its function; it reads nothing (a route takes table read at least).
  { method: 'GET', path: '/v1/openapi.json', handler: 'api/openapi/get', idempotency: 'none', table: 'read' },
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof routes)[number];

/**
 * The console's routes (docs/console.md): served on the console's origin under CONSOLE_API_PREFIX,
 * behind the console's session (which the API's Lambda authorizer checks, on both hosts), never
 * behind an API key. Each is a function of its own, like an API route, with the
 * same rules for its grants. The AWS-only sign-in steps (/console/auth/*) are the AWS host's.
 */
export const CONSOLE_API_PREFIX = '/console/api';

export interface ConsoleRouteDefinition extends RouteRules {
  readonly path: `${typeof CONSOLE_API_PREFIX}/${string}`;
  readonly handler: `console/${string}`;
}

export const consoleRoutes = [
  { method: 'GET', path: '/console/api/session', handler: 'console/session/get', idempotency: 'none', table: 'read' },
  // It reads nothing (a route takes table read at least); it only clears the cookies.
  // Deletes the session's item.
  { method: 'POST', path: '/console/api/sign-out', handler: 'console/session/sign-out', idempotency: 'none', table: 'readWrite' },
  { method: 'GET', path: '/console/api/keys', handler: 'console/keys/list', idempotency: 'none', table: 'read' },
  { method: 'POST', path: '/console/api/keys', handler: 'console/keys/create', idempotency: 'ignored', table: 'readWrite' },
  { method: 'DELETE', path: '/console/api/keys/{key_id}', handler: 'console/keys/revoke', idempotency: 'ignored', table: 'readWrite' },
  { method: 'GET', path: '/console/api/ledger', handler: 'console/account/list-ledger', idempotency: 'none', table: 'read', cursors: true },
  // Signs a GET of the upload's private source for the console's player.
  { method: 'GET', path: '/console/api/uploads/{upload_id}/media', handler: 'console/uploads/get-media', idempotency: 'none', table: 'read', bucket: 'read' },
] as const satisfies readonly ConsoleRouteDefinition[];

export type ConsoleRoute = (typeof consoleRoutes)[number];
export type AnyRoute = Route | ConsoleRoute;
export type AnyRouteDefinition = RouteDefinition | ConsoleRouteDefinition;

/**
 * The console's twin of an API route: the same function (and so the same rules, scoping and 404s)
 * at CONSOLE_API_PREFIX + its path, behind the console's session instead of an API key.
 */
export interface ConsoleTwin {
  readonly method: HttpMethod;
  readonly path: `${typeof CONSOLE_API_PREFIX}/v1/${string}`;
  /** The API route whose function answers it. */
  readonly route: Route;
}

/** Every API route's console twin (the AWS host routes each to the API route's own function). */
export const consoleTwins: readonly ConsoleTwin[] = routes.map((route) => ({ method: route.method, path: `${CONSOLE_API_PREFIX}${route.path}`, route }));

/** Whether a route key (`GET /console/api/v1/uploads`) is a console route or twin: its caller is a console session. */
export const isConsoleRouteKey = (key: string): boolean => key.split(' ')[1]?.startsWith(`${CONSOLE_API_PREFIX}/`) ?? false;
/** `GET /v1/account`: one per route (distributed over the routes, never a method with another route's path). */
type KeyOf<R extends Route> = R extends Route ? `${R['method']} ${R['path']}` : never;
export type RouteKey = KeyOf<Route>;

export const routeKey = (route: { method: HttpMethod; path: string }): string => `${route.method} ${route.path}`;

/** The route whose entry module is `handler`; handlers read their own rules from the table. */
export function routeFor<H extends AnyRoute['handler']>(handler: H): Extract<AnyRoute, { handler: H }> {
  const route = [...routes, ...consoleRoutes].find((r): r is Extract<AnyRoute, { handler: H }> => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
}

/** Entry module of the catch-all that answers unknown routes with the error envelope. */
export const notFoundHandler = 'api/not-found' as const;

type RouteMatch<R = Route> =
  | { kind: 'route'; route: R; pathParameters: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

/** A table of paths to match, each answered by `route`. */
const compile = <R>(entries: readonly { method: HttpMethod; path: string; route: R }[]) =>
  entries.map((entry) => ({
    ...entry,
    pattern: new RegExp(`^${entry.path.replaceAll('.', '\\.').replace(/\{([a-z_]+)\}/g, '(?<$1>[^/]+)')}$`),
  }));

function decodeParameters(groups: Record<string, string>): Record<string, string> | undefined {
  try {
    return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, decodeURIComponent(v)]));
  } catch {
    return undefined;
  }
}

function matchIn<R>(compiled: ReturnType<typeof compile<R>>, method: string, path: string): RouteMatch<R> {
  const allowed: HttpMethod[] = [];
  for (const { route, pattern, method: routeMethod } of compiled) {
    const match = pattern.exec(path);
    // A malformed percent-escape names no resource: no route at all, never a crash.
    const pathParameters = match && decodeParameters(match.groups ?? {});
    if (!pathParameters) continue;
    if (routeMethod === method) return { kind: 'route', route, pathParameters };
    allowed.push(routeMethod);
  }
  return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}

const apiTable = compile(routes.map((route) => ({ method: route.method, path: route.path, route })));

/** Resolves a request the way API Gateway does; the local host and the catch-all both use it. */
export const matchRoute = (method: string, path: string): RouteMatch => matchIn(apiTable, method, path);

/** What a console request reaches: a console route, or an API route's function through its twin (`key` is the route key asked for). */
export interface ConsoleTarget {
  key: string;
  route: AnyRoute;
}

const consoleTable = compile<ConsoleTarget>([
  ...consoleRoutes.map((route) => ({ method: route.method, path: route.path, route: { key: routeKey(route), route } })),
  ...consoleTwins.map((twin) => ({ method: twin.method, path: twin.path, route: { key: routeKey(twin), route: twin.route } })),
]);

/** Resolves a request under CONSOLE_API_PREFIX to a console route or twin (the local host's console dispatch). */
export const matchConsoleRoute = (method: string, path: string): RouteMatch<ConsoleTarget> => matchIn(consoleTable, method, path);
