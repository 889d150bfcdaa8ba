export { outboxMigrations } from './migrations.js';
export { enqueue } from './outbox.js';
export { OutboxRelay, type OutboxBacklog, type OutboxRelaySettings } from './relay.js';
export { handleOnce } from './inbox.js';
