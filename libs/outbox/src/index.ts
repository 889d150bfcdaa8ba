export { outboxMigrations } from './migrations.js';
export { enqueue, outboxRow } from './outbox.js';
export { OutboxRelay, type OutboxBacklog, type OutboxRelaySettings } from './relay.js';
export { handleOnce } from './inbox.js';
export { WRITER_WAKE_SETTINGS } from './writer-wake.js';
export { backoffMs } from './backoff.js';
export { CommitWakeUps, type CommitWakeUpsSettings } from './commit-wake-ups.js';
export { WakeUps } from './wake-ups.js';
