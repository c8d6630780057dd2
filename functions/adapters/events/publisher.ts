import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { eventBridgePublisher } from './eventbridge-publisher.js';
import { instrumentClient } from '../aws-call-hooks.js';
import { disabledEventPublisher, localEventBus } from './local-event-bus.js';
import type { Config } from '../../config.js';
import type { EventPublisher } from '../../domain/ports.js';

/**
 * Where terminal events go: the local host's in-process bus (which also appends
 * `<LOCAL_DATA_DIR>/events.ndjson`), the EventBridge bus EVENT_BUS_NAME on AWS, or nowhere when
 * neither is configured (SPEC Events: delivery is optional per deployment).
 */
export function eventPublisherFor(config: Config): EventPublisher {
  if (config.LOCAL_DATA_DIR) return localEventBus(join(config.LOCAL_DATA_DIR, 'events.ndjson'));
  if (config.EVENT_BUS_NAME) return eventBridgePublisher(instrumentClient(new EventBridgeClient({ region: config.AWS_REGION })), config.EVENT_BUS_NAME);
  return disabledEventPublisher;
}
