export type { BackendConfig } from './config.js';
export * from './definition.js';
export * from './service.js';
export {
  EndedSessions,
  endedSessionsMigrations,
  loadEndedSessions,
  recordSessionEnd,
  sessionEnds,
} from './ended-sessions.js';
export {
  deleteRowsOf,
  checkingErasedItself,
  droppingErased,
  erasedIdHash,
  eachIn,
  ERASURE_BATCH,
  type ErasureSettings,
  type ErasureStep,
  eraseUser,
  forgetCountsIn,
  idsOf,
  retireItemsOf,
  userDeletedHandler,
} from './erasure.js';
// Where a service's parts find the shared store its routes open (an erasure forgets a user's counts there).
export { type SharedStoreSlot, sharedStoreSlot } from '@recipes/http';
export { assertSchemaCurrent, EX_CONFIG, migrateSchema, runMigrations, SchemaBehindError } from './migrations.js';
