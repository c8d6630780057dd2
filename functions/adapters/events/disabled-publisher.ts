import type { EventPublisher } from '../../domain/events/ports.js';

/** Event delivery is optional per deployment (SPEC Events): with no bus configured, events go nowhere. */
export const disabledEventPublisher: EventPublisher = { publish: () => Promise.resolve() };
