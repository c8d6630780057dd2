import type { Account } from '../accounts/model.js';

/**
 * Whether events are delivered to an account's webhook endpoints (SPEC Events: optional per
 * deployment and per account). The one rule: endpoint creation refuses with 503
 * event_delivery_unavailable when this is false, and the delivery engine sends nothing.
 */
export const eventDeliveryEnabled = (deploymentEnabled: boolean, account: Pick<Account, 'eventDeliveryDisabled'>): boolean =>
  deploymentEnabled && account.eventDeliveryDisabled !== true;
