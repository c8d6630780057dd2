import type { EventPublisher } from '../domain/events/ports.js';
import type { DeliveryScheduler } from '../domain/webhooks/ports.js';
import type { ProviderResolverInvoker } from '../adapters/sources/provider-resolution.js';
import { currentHost, type WorkflowHost } from './host.js';

/**
 * The host's workflows and events as plain ports, resolved at their first call: composing them
 * costs nothing, so a function that never starts a workflow never loads Step Functions.
 */
export const hostWorkflows: WorkflowHost = {
  startAnalysis: async (ref) => (await currentHost().workflows()).startAnalysis(ref),
  startBatch: async (ref) => (await currentHost().workflows()).startBatch(ref),
  startRender: async (ref) => (await currentHost().workflows()).startRender(ref),
  succeed: async (token, output) => (await currentHost().workflows()).succeed(token, output),
};

export const hostEvents: EventPublisher = {
  publish: async (accountId, event) => (await currentHost().events()).publish(accountId, event),
};

export const hostDeliveryScheduler: DeliveryScheduler = {
  schedule: async (accountId, deliveryId, at) => (await currentHost().deliveryScheduler()).schedule(accountId, deliveryId, at),
};

export const hostProviderResolver: ProviderResolverInvoker = async (event) => (await currentHost().providerResolver())(event);
