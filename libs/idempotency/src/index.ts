export { Idempotency, type IdempotencySettings } from './idempotency.js';
export { IDEMPOTENCY_KEY_HEADER, idempotencyKeyHeaders, KEY_PATTERN, REPLAYED_HEADER } from './key.js';
export { idempotencyMigrations } from './migrations.js';
export { KeyPurger, type KeyPurgerSettings } from './purger.js';
export { purgeExpiredKeys } from './repository.js';
