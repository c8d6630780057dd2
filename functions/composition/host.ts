import { config } from '../config.js';
import type { EventPublisher } from '../domain/events/ports.js';
import type { BatchWorkflowStarter } from '../domain/batches/ports.js';
import type { TaskTokenCallbacks, WorkflowStarter } from '../domain/runs/ports.js';
import type { DeliveryScheduler } from '../domain/webhooks/ports.js';
import type { RenderWorkflowStarter } from '../domain/renders/model.js';
import type { ProviderResolverInvoker } from '../adapters/sources/provider-resolution.js';
import { installLauncher, type Launch } from '../adapters/child-process.js';
import { deferred } from '../shared/memo.js';
import { awsHost } from './aws-host.js';

/** What runs workflows: starts them and wakes executions waiting on a task token. */
export type WorkflowHost = WorkflowStarter & BatchWorkflowStarter & RenderWorkflowStarter & TaskTokenCallbacks;

/**
 * Everything that differs between the AWS host and the local host (DESIGN §2); all other code is
 * shared. Each part is built on first use, so a function pays only for the parts it calls.
 * (The table and the bucket are not here: both hosts reach them with the same SDK clients, the
 * local host's pointed at its stand-ins by configuration.)
 */
export interface Host {
  /** The HMAC key of list cursors: Secrets Manager on AWS, the data directory's key locally. */
  cursorSecret(): Promise<string>;
  /** Step Functions on AWS, the in-process interpreter locally. */
  workflows(): Promise<WorkflowHost>;
  /** EventBridge on AWS (or nowhere when event delivery is off), the in-process bus locally. */
  events(): Promise<EventPublisher>;
  /** What wakes the webhook sender when a delivery falls due: SQS and EventBridge Scheduler on AWS, timers locally. */
  deliveryScheduler(): Promise<DeliveryScheduler>;
  /**
   * How a unit starts a child process: node's spawn on AWS (Lambda and Fargate already confine
   * it); locally, inside the sandbox of the unit running (functions/local/sandbox), so a binary
   * the unit does not ship fails to start as it does on AWS.
   */
  readonly launch: Launch;
  /**
   * The provider-resolver function, which carries yt-dlp for the routes that have none: invoked
   * through Lambda on AWS, its handler run as a child process locally.
   */
  providerResolver(): Promise<ProviderResolverInvoker>;
}

let installed: Host | undefined;
let inUse = false;

/**
 * The local host installs itself once, before it loads any entry module; every other process
 * (a Lambda function, a Fargate task, a container child of the local host) runs on AWS's parts.
 */
export function installHost(host: Host): void {
  if (installed || inUse) throw new Error('The host is installed once per process, before any handler runs');
  installed = host;
  installLauncher(host.launch);
}

/** The host this process runs on. */
export function currentHost(): Host {
  inUse = true;
  return (installed ??= awsHost(config()));
}

/**
 * The host's workflows, events, delivery scheduler and provider resolver as plain ports, each
 * resolved at its first call: composing them costs nothing, so a function that never starts a
 * workflow never loads Step Functions.
 */
export const hostWorkflows: WorkflowHost = deferred(() => currentHost().workflows(), ['startAnalysis', 'startBatch', 'startRender', 'succeed']);
export const hostEvents: EventPublisher = deferred(() => currentHost().events(), ['publish']);
export const hostDeliveryScheduler: DeliveryScheduler = deferred(() => currentHost().deliveryScheduler(), ['schedule']);
export const hostProviderResolver: ProviderResolverInvoker = deferred(() => currentHost().providerResolver());

/**
 * What this host lets outbound fetches (sources, webhooks) reach beyond AWS's rules (DESIGN §9):
 * loopback targets, over plain http too, on a local host started with LOCAL_ALLOW_LOOPBACK_TARGETS=1.
 */
export const outboundPolicy = () => ({ allowLoopback: config().host.allowLoopbackTargets });
